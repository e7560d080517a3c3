package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
)

// newTransport returns the transport of absolute-form requests: every
// connection is dialled by the guard (under the request's context, which
// carries local mode's loopback port), no proxy from the environment, no
// transparent decompression (the client's Accept-Encoding travels as it
// is), a bounded response head, and no redirect following — a
// RoundTripper never follows redirects, so 3xx answers pass through.
func (s *Server) newTransport() *http.Transport {
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, s.dialTO)
			defer cancel()
			return s.guard.DialContext(ctx, network, addr)
		},
		DisableCompression:     true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		ResponseHeaderTimeout:  s.idle,
		MaxResponseHeaderBytes: int64(s.maxHead),
	}
}

// forward serves an admitted absolute-form http:// request: it sends it
// upstream without hop-by-hop headers and Proxy-Authorization, with the
// Host header set from the checked target (a client cannot name another
// virtual host than the one the rule covers), and streams the response
// back. It reports whether the client connection may carry another
// request.
func (s *Server) forward(cc *clientConn, req *http.Request, x *exchange) bool {
	ctx, cancel := context.WithCancel(x.v.ctx)
	defer cancel()
	// The idle watchdog cancels the exchange when no byte moved either way
	// for the idle timeout; every read of either body rearms it.
	watchdog := time.AfterFunc(s.idle, cancel)
	defer watchdog.Stop()
	arm := func() { watchdog.Reset(s.idle) }

	u := *req.URL
	u.Scheme, u.Host, u.User = "http", x.req.target.String(), nil
	out := (&http.Request{
		Method:        req.Method,
		URL:           &u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        req.Header.Clone(),
		Host:          hostHeader(x.req.target),
		ContentLength: req.ContentLength,
	}).WithContext(ctx)
	removeHopHeaders(out.Header)
	out.Header.Del("Expect")
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = nil // do not add Go's default
	}

	var body *clientBody
	if req.Body != nil && req.Body != http.NoBody {
		body = &clientBody{r: req.Body, c: cc.c, idle: s.idle, now: s.now, arm: arm}
		cc.lentReader = true
		out.Body = body
		if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
			cc.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
			if cc.bw.Flush() != nil {
				x.outcome = "client_closed"
				return false
			}
		}
	}

	resp, err := s.transport.RoundTrip(out)
	if body != nil {
		x.up = body.n.Load()
	}
	if err != nil {
		r := dialRefusal(err, x.req.target.String())
		if egress.IsResponseHeadTooLarge(err) {
			// The upstream was reached and answered: not a connection failure.
			r = refusal.Newf(refusal.ResponseHeadersTooLarge, "%s answered with a response head larger than %d bytes", x.req.target, s.maxHead).Wrap(err)
		}
		if ctx.Err() != nil && s.base.Err() == nil {
			r = refusal.Newf(refusal.Timeout, "no response head from %s within %s", x.req.target, s.idle).Wrap(err)
		}
		s.refuseHTTP(cc, x, r)
		s.log.Log(context.Background(), diag.L2, "forward failed", "target", x.req.target.String(), "reason", string(r.Code))
		return false
	}
	defer resp.Body.Close()

	keep := req.ProtoAtLeast(1, 1) && !req.Close && !s.closing.Load() && (body == nil || body.eof.Load())
	removeHopHeaders(resp.Header)
	down := &countingReader{r: resp.Body, arm: arm}
	resp.Body = down
	resp.Close = !keep
	if req.ProtoAtLeast(1, 1) {
		resp.Proto, resp.ProtoMajor, resp.ProtoMinor = "HTTP/1.1", 1, 1
		if resp.ContentLength < 0 {
			resp.TransferEncoding = []string{"chunked"}
		}
	} else {
		resp.Proto, resp.ProtoMajor, resp.ProtoMinor = "HTTP/1.0", 1, 0
		resp.TransferEncoding = nil
	}
	x.status = resp.StatusCode
	werr := resp.Write(cc.bw)
	if werr == nil {
		werr = cc.bw.Flush()
	}
	x.down = down.n
	if body != nil {
		x.up = body.n.Load()
	}
	if werr != nil {
		x.outcome = "closed"
		if ctx.Err() != nil && s.base.Err() == nil {
			x.outcome = refusal.Timeout
		}
		return false
	}
	return keep
}

// clientBody is the request body as the transport reads it: counted,
// bounded by the idle timeout on every read, and never drained on Close
// (a body the upstream did not read ends the client connection instead).
type clientBody struct {
	r    io.Reader
	c    net.Conn
	idle time.Duration
	now  func() time.Time
	arm  func()
	n    atomic.Int64
	eof  atomic.Bool
}

func (b *clientBody) Read(p []byte) (int, error) {
	b.c.SetReadDeadline(b.now().Add(b.idle))
	n, err := b.r.Read(p)
	b.n.Add(int64(n))
	if n > 0 {
		b.arm()
	}
	if errors.Is(err, io.EOF) {
		b.eof.Store(true)
	}
	return n, err
}

func (b *clientBody) Close() error { return nil }

// countingReader counts the response body and rearms the idle watchdog.
type countingReader struct {
	r   io.ReadCloser
	arm func()
	n   int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 {
		c.arm()
	}
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// deadlineWriter refreshes the write deadline before every write to the
// client, so a client that stops reading is dropped after the idle timeout.
type deadlineWriter struct {
	c    net.Conn
	idle time.Duration
	now  func() time.Time
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.c.SetWriteDeadline(w.now().Add(w.idle))
	return w.c.Write(p)
}
