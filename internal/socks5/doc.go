// Package socks5 reads and writes the SOCKS5 wire protocol a server
// speaks: RFC 1928's greeting, method selection, request and reply, and
// RFC 1929's username/password sub-negotiation. It is a codec only: it
// serves nothing, dials nothing and judges no destination; which commands
// a server serves and which destinations it admits are the server's (the
// proxy serves CONNECT only and judges the target as an HTTP CONNECT).
//
// A server runs the readers in the order of a connection:
//
//	methods, err := socks5.ReadGreeting(br)
//	method := socks5.ChooseMethod(methods, authRequired)
//	// write {socks5.Version, method}; on socks5.MethodUserPass:
//	user, password, err := socks5.ReadUserPass(br)
//	req, err := socks5.ReadRequest(br)
//	var se *socks5.Error
//	if errors.As(err, &se) { /* write socks5.Reply(se.Rep) */ }
//
// # Malformed or answered
//
// A message that is not RFC 1928/1929 at all — a wrong version, a set
// reserved byte, no method offered, an empty username or password — is
// malformed: the error wraps [ErrMalformed], and the server closes the
// connection. A message cut short returns [io.ErrUnexpectedEOF] (or the
// reader's own error; [io.EOF] only when nothing of the message was
// read). A well-formed request whose destination cannot be read (an
// unknown address type, an empty domain name) returns an [*Error]
// carrying the reply code to send and a refusal naming why.
//
// # Bounds
//
// Every read is bounded by the message's own length bytes: NMETHODS,
// ULEN, PLEN and the domain's length are single bytes, so no field is
// longer than 255 bytes and a message never more than 513. Nothing is
// read past the message, so the bytes that follow (a tunnel's first
// bytes) stay in the caller's reader.
package socks5
