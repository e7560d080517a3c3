package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/socks5"
	"github.com/ocfetch/ocfetch/refusal"
)

// serveSocks serves one SOCKS5 connection (its first byte, 0x05, is
// buffered): the greeting, the RFC 1929 sub-negotiation when the server
// has credentials, then one CONNECT. The target goes through the same
// admission step, the same guard dial and the same relay as an HTTP
// CONNECT, and gets the same audit line ("CONNECT example.com"; a refusal
// records no status, SOCKS5 having reply codes, not HTTP statuses). Every
// refusal after the greeting is answered in the protocol (a reply code, or
// the auth failure status) before the connection is closed. A connection
// that is not SOCKS5 after all is closed without an audit line, as a
// malformed HTTP head is.
func (s *Server) serveSocks(cc *clientConn) {
	methods, err := socks5.ReadGreeting(cc.br)
	if err != nil {
		s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 greeting")
		return
	}
	x := &exchange{id: uuid.New(), start: s.now(), req: parsedRequest{kind: kindConnect, method: http.MethodConnect}}
	method := socks5.ChooseMethod(methods, s.auth != nil)
	if !s.socksWrite(cc, []byte{socks5.Version, method}) {
		return
	}
	if method == socks5.MethodNoAcceptable {
		if s.auth != nil {
			// The client offered no username/password: audited as an
			// unauthenticated client.
			x.refuse(authRequired("SOCKS5 username/password"))
			s.record(x)
		}
		return
	}
	if method == socks5.MethodUserPass {
		user, pass, err := socks5.ReadUserPass(cc.br)
		if err != nil {
			s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 username/password request")
			return
		}
		if s.auth != nil && !s.auth.match(user, pass) {
			s.socksWrite(cc, []byte{socks5.AuthVersion, socks5.AuthFailed})
			x.refuse(authRequired("SOCKS5 username/password"))
			s.record(x)
			return
		}
		if !s.socksWrite(cc, []byte{socks5.AuthVersion, socks5.AuthOK}) {
			return
		}
	}
	if s.auth == nil || method == socks5.MethodUserPass {
		if !cc.handshaking.CompareAndSwap(true, false) && cc.isClosed() {
			return // evicted during its handshake: it is gone
		}
	}

	req, err := socks5.ReadRequest(cc.br)
	var se *socks5.Error
	if errors.As(err, &se) {
		s.socksRefuse(cc, x, se.Rep, se.Err)
		return
	}
	if err != nil {
		s.log.Log(context.Background(), diag.L2, "malformed SOCKS5 request")
		s.socksWrite(cc, socks5.Reply(socks5.GeneralFailure))
		return
	}
	x.start = s.now()
	defer s.record(x)
	t, se := socksTarget(req)
	if se != nil {
		if req.Cmd != socks5.CmdConnect {
			x.req.method = "SOCKS-" + sanitizeMethod(strings.ReplaceAll(socks5.CommandName(req.Cmd), " ", "-"))
		}
		s.socksRefuse(cc, x, se.Rep, se.Err)
		return
	}
	x.req.target = t
	cc.c.SetReadDeadline(time.Time{})
	if !s.admitTarget(s.base, x) {
		s.socksRefuse(cc, x, socks5.ReplyFor(x.v.err), x.v.err)
		return
	}
	up, r := s.dialUpstream(cc, x)
	if r != nil {
		s.socksRefuse(cc, x, socks5.ReplyFor(r), r)
		return
	}
	if up == nil {
		return
	}
	x.status = http.StatusOK
	if !s.answerOpen(cc, x, socks5.Reply(socks5.Succeeded)) {
		return
	}
	s.relay(cc, up, x)
}

// socksTarget judges the request: CONNECT only, a port other than 0, and
// a host that normalises to itself (as an HTTP CONNECT target must). The
// domain name is normalised as rules and the guard see it; an IPv4-mapped
// IPv6 address stays in its mapped form, so the public-address check
// refuses ::ffff:127.0.0.1 just as it does over HTTP.
func socksTarget(q socks5.Request) (capability.Target, *socks5.Error) {
	switch q.Cmd {
	case socks5.CmdConnect:
	case socks5.CmdBind, socks5.CmdUDPAssociate:
		return capability.Target{}, &socks5.Error{Rep: socks5.CommandNotSupported,
			Err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 command %s is not supported; only CONNECT is", socks5.CommandName(q.Cmd)).
				WithHint("use CONNECT (TCP); UDP and BIND are not proxied")}
	default:
		return capability.Target{}, &socks5.Error{Rep: socks5.CommandNotSupported,
			Err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 command %d is not supported; only CONNECT is", q.Cmd).
				WithHint("use CONNECT")}
	}
	if q.Port == 0 {
		return capability.Target{}, &socks5.Error{Rep: socks5.GeneralFailure,
			Err: refusal.New(refusal.InvalidArguments, "SOCKS5 request for port 0").WithHint("name the port to connect to")}
	}
	host := q.Name
	if q.AddrType != socks5.AtypDomain {
		host = q.Addr.String()
	}
	t, err := parseTarget(net.JoinHostPort(host, strconv.Itoa(int(q.Port))), 0)
	if err != nil {
		return capability.Target{}, &socks5.Error{Rep: socks5.NotAllowed, Err: invalidHost(err)}
	}
	return t, nil
}

// socksRefuse audits a refused SOCKS5 request and then answers it with
// rep: recorded first, as [Server.refuseHTTP] does, so that the line
// `ocfetch run` prints about a refusal by policy comes before anything
// the client prints. A SOCKS5 refusal's audit line has no status: the
// protocol answers with a reply code, not an HTTP status.
func (s *Server) socksRefuse(cc *clientConn, x *exchange, rep byte, r *refusal.Error) {
	x.refuse(r)
	s.record(x)
	s.socksWrite(cc, socks5.Reply(rep))
}

// socksWrite writes one handshake message (cc.bw bounds it with a
// deadline) and reports whether it went out.
func (s *Server) socksWrite(cc *clientConn, msg []byte) bool {
	cc.bw.Write(msg)
	return cc.bw.Flush() == nil
}
