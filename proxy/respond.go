package proxy

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
)

// ReasonHeader carries the refusal code on every response the proxy itself
// writes instead of forwarding one.
const ReasonHeader = "X-Ocfetch-Reason"

// statusFor maps a refusal to the status of the proxy's own response: 403
// for a policy refusal (an unacceptable host included), 400 for a request
// that is not HTTP the proxy can read, 503 past the connection cap, 504 for
// a timeout and 502 for any other failure to reach the target. (An
// oversized request head is answered 431 by its caller.)
func statusFor(r *refusal.Error) int {
	switch r.Code {
	case refusal.InvalidArguments:
		return http.StatusBadRequest
	case refusal.TooManyConnections:
		return http.StatusServiceUnavailable
	case refusal.Timeout:
		return http.StatusGatewayTimeout
	}
	if r.Code.Policy() {
		return http.StatusForbidden
	}
	return http.StatusBadGateway
}

// refusalLine is the one-line body of a refusal:
// "ocfetch: <code>: <message> (hint: <hint>)".
func refusalLine(r *refusal.Error) string {
	var b strings.Builder
	b.WriteString("ocfetch: ")
	b.WriteString(string(r.Code))
	b.WriteString(": ")
	b.WriteString(oneLine(r.Message))
	if r.Hint != "" {
		b.WriteString(" (hint: ")
		b.WriteString(oneLine(r.Hint))
		b.WriteString(")")
	}
	b.WriteString("\n")
	return b.String()
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// writeRefusal writes a complete refusal response to w and asks the client
// to close the connection. The caller flushes.
func writeRefusal(w *bufio.Writer, status int, r *refusal.Error) {
	writeRefusalWith(w, status, r, "")
}

// writeRefusalWith is writeRefusal with extra header lines (each ending
// in CRLF).
func writeRefusalWith(w *bufio.Writer, status int, r *refusal.Error, extra string) {
	body := refusalLine(r)
	w.WriteString("HTTP/1.1 ")
	w.WriteString(strconv.Itoa(status))
	w.WriteString(" ")
	w.WriteString(http.StatusText(status))
	w.WriteString("\r\n")
	w.WriteString(extra)
	w.WriteString(ReasonHeader + ": ")
	w.WriteString(string(r.Code))
	w.WriteString("\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ")
	w.WriteString(strconv.Itoa(len(body)))
	w.WriteString("\r\nConnection: close\r\nProxy-Connection: close\r\n\r\n")
	w.WriteString(body)
}

// writeAuthRequired answers 407 with the Basic challenge, so that clients
// that hold credentials for the proxy send them.
func (s *Server) writeAuthRequired(cc *clientConn, r *refusal.Error) {
	writeRefusalWith(cc.bw, http.StatusProxyAuthRequired, r, "Proxy-Authenticate: Basic realm=\"ocfetch\"\r\n")
	cc.bw.Flush()
}

// dialRefusal names a failure to reach target: the guard's own refusal
// (address_not_public, connection_failed, …) when it gave one, else timeout
// or connection_failed. A connection_failed says why and hints at the fix
// (egress.ExplainFailure: refused, reset, no route, no such host; for a
// loopback target, whether a server listens on its port). The cause is
// kept for errors.Is but its text is never printed: it may carry a URL.
func dialRefusal(err error, target string) *refusal.Error {
	host, portStr, _ := net.SplitHostPort(target)
	port, _ := strconv.ParseUint(portStr, 10, 16)
	local := host == "localhost" || host == "127.0.0.1" || host == "::1"
	if r, ok := refusal.As(err); ok {
		return egress.ExplainFailure(r, local, uint16(port))
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return refusal.Newf(refusal.Timeout, "connecting to %s timed out", target).
			WithHint("check that the server is up, or retry later").Wrap(err)
	}
	r := egress.ExplainFailure(refusal.Newf(refusal.ConnectionFailed, "could not connect to %s", target).Wrap(err), local, uint16(port))
	if r.Hint == "" {
		r = r.WithHint("check that the server is up and the port is right")
	}
	return r
}

func tooManyConnections(limit int) *refusal.Error {
	return refusal.Newf(refusal.TooManyConnections,
		"the proxy is serving its limit of %d connections", limit).
		WithHint("retry shortly, or start the proxy with a higher limit")
}

func headTooLarge(limit int) *refusal.Error {
	return refusal.Newf(refusal.RequestHeadersTooLarge,
		"the request head is larger than %d bytes", limit).
		WithHint("send fewer or smaller headers")
}
