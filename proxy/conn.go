package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/socks5"
	"github.com/ocfetch/ocfetch/refusal"
)

// serveConn serves one client connection: any number of absolute-form
// requests (keep-alive), or one CONNECT tunnel. It owns cc and its
// semaphore token.
func (s *Server) serveConn(cc *clientConn) {
	defer func() {
		cc.close()
		cc.release()
		s.forget(cc)
		<-s.sem
		s.wg.Done()
	}()
	for first := true; ; first = false {
		// A new connection must send its head within the handshake
		// timeout; a kept-alive one may wait IdleTimeout for the next.
		wait := s.handshake
		if !first {
			wait = s.idle
		}
		cc.state.Store(stateIdle)
		if s.closing.Load() {
			return
		}
		cc.c.SetReadDeadline(s.now().Add(wait))
		if first && s.sniffSocks(cc) {
			return
		}
		req, err := readHead(cc.br, cc.head, s.maxHead)
		cc.state.Store(stateActive)
		if err != nil {
			s.headError(cc, err, first)
			return
		}
		cc.c.SetReadDeadline(time.Time{})
		if !s.serveRequest(cc, req) {
			return
		}
	}
}

// sniffSocks reads the first byte of a new connection: a SOCKS5 greeting
// starts with 0x05, which no HTTP request line does. It serves the SOCKS5
// connection and reports true, or reports false and leaves the byte
// buffered for the HTTP reader (a failed read is that reader's to report).
// Both protocols share the listener, the cap and the timeouts.
func (s *Server) sniffSocks(cc *clientConn) bool {
	cc.head.n = int64(s.maxHead) + int64(cc.br.Size())
	b, err := cc.br.Peek(1)
	if err != nil || b[0] != socks5.Version {
		return false
	}
	cc.state.Store(stateActive)
	s.serveSocks(cc)
	return true
}

// admitTarget is the one call of the admission step for every front end
// of the proxy (HTTP, CONNECT and SOCKS5), so that they cannot decide
// differently. Each exchange is one call ([securefile.Call]): the audit
// log's preflight and the decision check the workspace's directory once
// and each file once, and the next exchange checks them all again (an
// edit is seen by the next request, seed 000).
func (s *Server) admitTarget(ctx context.Context, x *exchange) bool {
	ctx = securefile.WithCall(ctx, securefile.NewCall())
	if err := s.audit.PreflightContext(ctx); err != nil {
		// Nothing is dialled for a call that cannot be recorded.
		rerr, _ := refusal.As(err)
		x.v = verdict{decidedBy: audit.ByPolicy, err: rerr}
		x.refuse(rerr)
		return false
	}
	x.v = s.admit(ctx, x.req.origin())
	if x.v.err != nil {
		x.refuse(x.v.err)
		return false
	}
	x.admitted = true
	return true
}

// headError answers a request head that could not be read: 431 when it was
// too large, 400 when it was malformed; a connection closed or timed out
// between requests is simply closed.
func (s *Server) headError(cc *clientConn, err error, first bool) {
	var ne net.Error
	switch {
	case errors.Is(err, errHeadTooLarge):
		s.writeRefusal(cc, http.StatusRequestHeaderFieldsTooLarge, headTooLarge(s.maxHead))
		s.log.Log(context.Background(), diag.L2, "request head too large", "limit", s.maxHead)
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
	case errors.As(err, &ne) && ne.Timeout():
		if first {
			s.log.Log(context.Background(), diag.L2, "no request head within the handshake timeout", "timeout", s.handshake)
		}
	default:
		s.writeRefusal(cc, http.StatusBadRequest, refusal.New(refusal.InvalidArguments, "malformed request head").
			WithHint("send an HTTP/1.1 CONNECT or absolute-form request"))
		s.log.Log(context.Background(), diag.L2, "malformed request head")
	}
}

// writeRefusal answers the client with r (cc.bw bounds the write with a
// deadline).
func (s *Server) writeRefusal(cc *clientConn, status int, r *refusal.Error) {
	writeRefusal(cc.bw, status, r)
	cc.bw.Flush()
}

// exchange is what one request or tunnel leaves for its audit line.
type exchange struct {
	id       uuid.UUID
	start    time.Time
	req      parsedRequest
	v        verdict
	status   int
	up, down int64
	outcome  refusal.Code // "" when the exchange completed
	admitted bool
	// refused is the refusal the client was answered with, if any.
	refused *refusal.Error
	// recorded: the exchange's audit line is written ([Server.record]
	// writes it once).
	recorded bool
}

// refuse records r as the exchange's outcome (the status is the caller's).
func (x *exchange) refuse(r *refusal.Error) {
	x.refused, x.outcome = r, r.Code
}

// refuseHTTP answers x, an HTTP request or CONNECT, with the refusal r
// and its status. The exchange is recorded first — its audit line
// written and, for a refusal by policy, Options.Refused told — and only
// then answered, so that the line `ocfetch run` prints comes before
// anything the client prints about the answer.
func (s *Server) refuseHTTP(cc *clientConn, x *exchange, r *refusal.Error) {
	x.refuse(r)
	x.status = statusFor(r)
	s.record(x)
	s.writeRefusal(cc, x.status, r)
}

// serveRequest serves one request head and reports whether the connection
// may carry another request.
func (s *Server) serveRequest(cc *clientConn, req *http.Request) (keepAlive bool) {
	x := &exchange{id: uuid.New(), start: s.now()}
	defer s.record(x)

	p, rerr := parseRequest(req)
	x.req = p
	if rerr != nil {
		x.req.method = sanitizeMethod(req.Method)
		x.req.host = namedHost(req)
		s.refuseHTTP(cc, x, rerr)
		return false
	}
	if !s.authorized(req.Header) {
		r := authRequired("Proxy-Authorization: Basic")
		x.refuse(r)
		x.status = http.StatusProxyAuthRequired
		s.writeAuthRequired(cc, r)
		return false
	}
	if !cc.handshaking.CompareAndSwap(true, false) && cc.isClosed() {
		return false // evicted while its head was read: it is gone
	}
	if !s.admitTarget(s.base, x) {
		s.refuseHTTP(cc, x, x.v.err)
		return false
	}
	if p.kind == kindConnect {
		s.tunnel(cc, x)
		return false
	}
	return s.forward(cc, req, x)
}

// sanitizeMethod returns m if it is a plain token of at most 16 bytes, else
// "OTHER": an audit line never carries attacker-chosen text.
func sanitizeMethod(m string) string {
	if m == "" || len(m) > 16 {
		return "OTHER"
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "OTHER"
		}
	}
	return m
}
