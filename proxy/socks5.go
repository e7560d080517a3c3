package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
)

// The SOCKS5 wire protocol (RFC 1928), the CONNECT command only, and the
// username/password sub-negotiation (RFC 1929). This file parses and
// writes messages; socksconn.go serves a connection with them.

const socksVersion = 0x05

// Authentication methods.
const (
	socksMethodNone         = 0x00
	socksMethodUserPass     = 0x02
	socksMethodNoAcceptable = 0xFF
)

// Commands.
const (
	socksCmdConnect      = 0x01
	socksCmdBind         = 0x02
	socksCmdUDPAssociate = 0x03
)

// Address types.
const (
	socksAtypIPv4   = 0x01
	socksAtypDomain = 0x03
	socksAtypIPv6   = 0x04
)

// Reply codes.
const (
	socksSucceeded           = 0x00
	socksGeneralFailure      = 0x01
	socksNotAllowed          = 0x02
	socksNetworkUnreachable  = 0x03
	socksHostUnreachable     = 0x04
	socksConnectionRefused   = 0x05
	socksTTLExpired          = 0x06
	socksCommandNotSupported = 0x07
	socksAddrNotSupported    = 0x08
)

// The username/password sub-negotiation's version and statuses.
const (
	socksAuthVersion = 0x01
	socksAuthOK      = 0x00
	socksAuthFailed  = 0x01
)

// errSocksMalformed wraps every message that is not RFC 1928/1929.
var errSocksMalformed = errors.New("malformed SOCKS5 message")

// socksError is a request the proxy answers with a reply code rather than
// serving: an unsupported command or address type, or a malformed address.
type socksError struct {
	rep byte
	err *refusal.Error
}

func (e *socksError) Error() string { return e.err.Error() }

// readSocksGreeting reads the client's greeting, VER NMETHODS METHODS, and
// returns the methods offered. NMETHODS 0 is malformed.
func readSocksGreeting(r io.Reader) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	if h[0] != socksVersion {
		return nil, fmt.Errorf("%w: version %d in the greeting", errSocksMalformed, h[0])
	}
	if h[1] == 0 {
		return nil, fmt.Errorf("%w: the greeting offers no method", errSocksMalformed)
	}
	methods := make([]byte, h[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return nil, unexpected(err)
	}
	return methods, nil
}

// chooseSocksMethod picks the method for a greeting: username/password
// when the server requires credentials (and none acceptable when the
// client does not offer it), else no authentication, else
// username/password with any credentials accepted.
func chooseSocksMethod(offered []byte, authRequired bool) byte {
	has := func(m byte) bool {
		for _, o := range offered {
			if o == m {
				return true
			}
		}
		return false
	}
	switch {
	case authRequired && has(socksMethodUserPass):
		return socksMethodUserPass
	case authRequired:
		return socksMethodNoAcceptable
	case has(socksMethodNone):
		return socksMethodNone
	case has(socksMethodUserPass):
		return socksMethodUserPass
	}
	return socksMethodNoAcceptable
}

// readSocksUserPass reads the RFC 1929 request VER ULEN UNAME PLEN PASSWD.
// Empty names and passwords are malformed (ULEN and PLEN are 1–255).
func readSocksUserPass(r io.Reader) (user, password string, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", "", err
	}
	if h[0] != socksAuthVersion {
		return "", "", fmt.Errorf("%w: username/password version %d", errSocksMalformed, h[0])
	}
	u, err := readSocksString(r, h[1])
	if err != nil {
		return "", "", err
	}
	var pl [1]byte
	if _, err := io.ReadFull(r, pl[:]); err != nil {
		return "", "", unexpected(err)
	}
	p, err := readSocksString(r, pl[0])
	if err != nil {
		return "", "", err
	}
	return u, p, nil
}

func readSocksString(r io.Reader, n byte) (string, error) {
	if n == 0 {
		return "", fmt.Errorf("%w: empty field", errSocksMalformed)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", unexpected(err)
	}
	return string(b), nil
}

// socksRequest is a parsed request: the command and the destination as
// the client sent it.
type socksRequest struct {
	cmd  byte
	atyp byte
	addr netip.Addr // for socksAtypIPv4 and socksAtypIPv6
	name string     // for socksAtypDomain, as sent
	port uint16
}

// readSocksRequest reads VER CMD RSV ATYP DST.ADDR DST.PORT. A request
// whose address cannot be read (an unknown address type, an empty domain)
// returns a *socksError with the reply to send; one that is not SOCKS5 at
// all (wrong version, short) returns an error wrapping errSocksMalformed
// or the read error. The command is not judged here: see
// [socksRequest.target].
func readSocksRequest(r io.Reader) (socksRequest, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return socksRequest{}, err
	}
	if h[0] != socksVersion {
		return socksRequest{}, fmt.Errorf("%w: version %d in the request", errSocksMalformed, h[0])
	}
	if h[2] != 0 {
		return socksRequest{}, fmt.Errorf("%w: reserved byte %d", errSocksMalformed, h[2])
	}
	req := socksRequest{cmd: h[1], atyp: h[3]}
	switch req.atyp {
	case socksAtypIPv4:
		var a [4]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return socksRequest{}, unexpected(err)
		}
		req.addr = netip.AddrFrom4(a)
	case socksAtypIPv6:
		var a [16]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return socksRequest{}, unexpected(err)
		}
		req.addr = netip.AddrFrom16(a)
	case socksAtypDomain:
		var l [1]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return socksRequest{}, unexpected(err)
		}
		if l[0] == 0 {
			return socksRequest{}, &socksError{rep: socksGeneralFailure,
				err: refusal.New(refusal.InvalidArguments, "SOCKS5 request with an empty domain name").
					WithHint("send a host name or an IP address")}
		}
		name := make([]byte, l[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return socksRequest{}, unexpected(err)
		}
		req.name = string(name)
	default:
		return socksRequest{}, &socksError{rep: socksAddrNotSupported,
			err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 address type %d is not supported", req.atyp).
				WithHint("send an IPv4 address, an IPv6 address or a domain name")}
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return socksRequest{}, unexpected(err)
	}
	req.port = binary.BigEndian.Uint16(p[:])
	return req, nil
}

// target judges the request: CONNECT only, a port other than 0, and a host
// that normalises to itself (as an HTTP CONNECT target must). The domain
// name is normalised as rules and the guard see it; an IPv4-mapped IPv6
// address stays in its mapped form, so the public-address check refuses
// ::ffff:127.0.0.1 just as it does over HTTP.
func (q socksRequest) target() (capability.Target, *socksError) {
	switch q.cmd {
	case socksCmdConnect:
	case socksCmdBind, socksCmdUDPAssociate:
		return capability.Target{}, &socksError{rep: socksCommandNotSupported,
			err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 command %s is not supported; only CONNECT is", socksCmdName(q.cmd)).
				WithHint("use CONNECT (TCP); UDP and BIND are not proxied")}
	default:
		return capability.Target{}, &socksError{rep: socksCommandNotSupported,
			err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 command %d is not supported; only CONNECT is", q.cmd).
				WithHint("use CONNECT")}
	}
	if q.port == 0 {
		return capability.Target{}, &socksError{rep: socksGeneralFailure,
			err: refusal.New(refusal.InvalidArguments, "SOCKS5 request for port 0").WithHint("name the port to connect to")}
	}
	host := q.name
	if q.atyp != socksAtypDomain {
		host = q.addr.String()
	}
	t, err := parseTarget(net.JoinHostPort(host, strconv.Itoa(int(q.port))), 0)
	if err != nil {
		return capability.Target{}, &socksError{rep: socksNotAllowed, err: invalidHost(err)}
	}
	return t, nil
}

func socksCmdName(c byte) string {
	switch c {
	case socksCmdBind:
		return "BIND"
	case socksCmdUDPAssociate:
		return "UDP ASSOCIATE"
	}
	return strconv.Itoa(int(c))
}

// socksReply is a reply with the bound address 0.0.0.0:0: the client of a
// CONNECT has no use for the proxy's outbound address, and it is not
// disclosed.
func socksReply(rep byte) []byte {
	return []byte{socksVersion, rep, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0}
}

// socksReplyFor maps a refusal to the reply code clients show: "not
// allowed by ruleset" for every policy refusal (their reason is in the
// audit line and on ocfetch run's stderr), and the network's own answers
// for failures to reach the target.
func socksReplyFor(r *refusal.Error) byte {
	switch r.Code {
	case refusal.Timeout:
		return socksTTLExpired
	case refusal.ConnectionFailed:
		return socksConnectionRefused
	case refusal.TooManyConnections, refusal.InvalidArguments:
		return socksGeneralFailure
	}
	if r.Code.Policy() {
		return socksNotAllowed
	}
	return socksHostUnreachable
}

// unexpected turns an EOF in the middle of a message into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
