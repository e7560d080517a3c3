package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
)

// requestError maps an error of client.Do to a refusal. A *refusal.Error
// in the chain (the egress guard's, or the redirect policy's) is kept as it
// is. Anything else is classified, and the message names the method and the
// host only: the text of a *url.Error carries the whole URL, so it is never
// used (it stays reachable through Unwrap for errors.Is/As).
//
// A connection_failed says why, from the error values
// (egress.ExplainFailure): "connection refused", "connection reset", "no
// route to host", "network unreachable", "no such host", with a hint; for
// local mode's loopback port, "is a server listening on port PORT?".
func (f *Fetch) requestError(ctx context.Context, p *prepared, err error) *refusal.Error {
	if r, ok := refusal.As(err); ok {
		return f.explain(p, r)
	}
	who := p.method + " " + p.scheme + "://" + p.target.String()
	switch {
	case isTimeout(ctx, err):
		return refusal.Newf(refusal.Timeout, "%s: no complete response within %s", who, p.timeout).
			WithHint("the server is slow or unreachable; try again later").Wrap(err)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return refusal.Newf(refusal.Cancelled, "%s: the call was cancelled (the client went away)", who).Wrap(err)
	case egress.IsTLSFailure(err):
		return refusal.Newf(refusal.TLSError, "%s: the TLS handshake failed (certificate or protocol)", who).
			WithHint("the server's certificate is not valid for this host or not trusted").Wrap(err)
	case egress.IsResponseHeadTooLarge(err):
		return refusal.Newf(refusal.ResponseHeadersTooLarge, "%s: the response headers are larger than the client accepts", who).Wrap(err)
	case strings.Contains(innerText(err), "failed to parse Location header"):
		return refusal.Newf(refusal.RedirectOffTarget, "%s: redirected to a Location that is not a valid URL; not followed", who).Wrap(err)
	}
	msg := "the request failed"
	if egress.FailureCause(err) == "" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		msg = "the server closed the connection without a response"
	}
	return f.explain(p, refusal.Newf(refusal.ConnectionFailed, "%s: %s", who, msg).Wrap(err))
}

// explain adds the cause and a hint to a connection_failed refusal.
func (f *Fetch) explain(p *prepared, r *refusal.Error) *refusal.Error {
	return egress.ExplainFailure(r, p.local, p.target.Port())
}

// bodyError maps an error while reading the body.
func (f *Fetch) bodyError(ctx context.Context, p *prepared, err error) *refusal.Error {
	who := p.method + " " + p.scheme + "://" + p.target.String()
	switch {
	case isTimeout(ctx, err):
		return refusal.Newf(refusal.Timeout, "%s: the body did not arrive within %s", who, p.timeout).
			WithHint("the server is slow; try again later").Wrap(err)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return refusal.Newf(refusal.Cancelled, "%s: the call was cancelled (the client went away) while reading the body", who).Wrap(err)
	case errors.Is(err, errBadEncoding):
		return refusal.Newf(refusal.ConnectionFailed, "%s: the body could not be decompressed (corrupt gzip)", who).Wrap(err)
	}
	return f.explain(p, refusal.Newf(refusal.ConnectionFailed, "%s: the connection failed while reading the body", who).Wrap(err))
}

// isTimeout reports a deadline: ours (ctx), the client's Timeout, or a
// network timeout.
func isTimeout(ctx context.Context, err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// innerText is the text of err without the *url.Error wrapper (which
// carries the URL), for classification only, never for a message.
func innerText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}
