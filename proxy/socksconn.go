package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/refusal"
)

// serveSocks serves one SOCKS5 connection (its first byte, 0x05, is
// buffered): the greeting, the RFC 1929 sub-negotiation when the server
// has credentials, then one CONNECT. The target goes through the same
// admission step, the same guard dial and the same relay as an HTTP
// CONNECT, and gets the same audit line ("CONNECT example.com"). Every
// refusal after the greeting is answered in the protocol (a reply code, or
// the auth failure status) before the connection is closed. A connection
// that is not SOCKS5 after all is closed without an audit line, as a
// malformed HTTP head is.
func (s *Server) serveSocks(cc *clientConn) {
	methods, err := readSocksGreeting(cc.br)
	if err != nil {
		s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 greeting")
		return
	}
	x := &exchange{id: uuid.New(), start: s.now(), req: parsedRequest{kind: kindConnect, method: http.MethodConnect}}
	method := chooseSocksMethod(methods, s.auth != nil)
	if !s.socksWrite(cc, []byte{socksVersion, method}) {
		return
	}
	if method == socksMethodNoAcceptable {
		if s.auth != nil {
			// The client offered no username/password: audited as an
			// unauthenticated client.
			x.refuse(authRequired("SOCKS5 username/password"))
			s.record(x)
		}
		return
	}
	if method == socksMethodUserPass {
		user, pass, err := readSocksUserPass(cc.br)
		if err != nil {
			s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 username/password request")
			return
		}
		if s.auth != nil && !s.auth.match(user, pass) {
			s.socksWrite(cc, []byte{socksAuthVersion, socksAuthFailed})
			x.refuse(authRequired("SOCKS5 username/password"))
			s.record(x)
			return
		}
		if !s.socksWrite(cc, []byte{socksAuthVersion, socksAuthOK}) {
			return
		}
	}
	if s.auth == nil || method == socksMethodUserPass {
		if !cc.handshaking.CompareAndSwap(true, false) && cc.isClosed() {
			return // evicted during its handshake: it is gone
		}
	}

	req, err := readSocksRequest(cc.br)
	var se *socksError
	if errors.As(err, &se) {
		s.socksRefuse(cc, x, se.rep, se.err)
		return
	}
	if err != nil {
		s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 request")
		s.socksWrite(cc, socksReply(socksGeneralFailure))
		return
	}
	x.start = s.now()
	defer s.record(x)
	t, se := req.target()
	if se != nil {
		if req.cmd != socksCmdConnect {
			x.req.method = "SOCKS-" + sanitizeMethod(strings.ReplaceAll(socksCmdName(req.cmd), " ", "-"))
		}
		x.refuse(se.err)
		x.status = statusFor(se.err)
		s.socksWrite(cc, socksReply(se.rep))
		return
	}
	x.req.target = t
	cc.c.SetReadDeadline(time.Time{})
	if !s.admitTarget(s.base, x) {
		x.status = statusFor(x.v.err)
		s.socksWrite(cc, socksReply(socksReplyFor(x.v.err)))
		return
	}
	up, r := s.dialUpstream(cc, x)
	if r != nil {
		x.status = statusFor(r)
		s.socksWrite(cc, socksReply(socksReplyFor(r)))
		return
	}
	if up == nil {
		return
	}
	x.status = http.StatusOK
	if !s.answerOpen(cc, x, socksReply(socksSucceeded)) {
		return
	}
	s.relay(cc, up, x)
}

// socksRefuse answers a request that could not be judged with rep and
// audits it.
func (s *Server) socksRefuse(cc *clientConn, x *exchange, rep byte, r *refusal.Error) {
	x.refuse(r)
	x.status = statusFor(r)
	s.socksWrite(cc, socksReply(rep))
	s.record(x)
}

// socksWrite writes one handshake message (cc.bw bounds it with a
// deadline) and reports whether it went out.
func (s *Server) socksWrite(cc *clientConn, msg []byte) bool {
	cc.bw.Write(msg)
	return cc.bw.Flush() == nil
}
