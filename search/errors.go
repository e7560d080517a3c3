package search

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
)

// statusError names a non-2xx answer: 429 is search_rate_limited with the
// Retry-After the backend sent (seconds, or an HTTP date counted from
// now); anything else is search_backend_failed with the status. The
// answer's body is never quoted: a backend may echo the query in it.
func statusError(who string, resp *http.Response, now time.Time) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	status := strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		status += " " + t
	}
	if code == http.StatusTooManyRequests {
		msg := who + " answered HTTP " + status
		hint, forModel := "wait before searching again, or raise the plan's rate limit", "wait before searching again"
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), now); ok {
			msg += "; retry after " + d.String()
			hint = "search again after " + d.String()
			forModel = hint
		}
		return refusal.New(refusal.SearchRateLimited, msg).WithHints(hint, forModel)
	}
	hint, forModel := "the backend failed; try again later", ""
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		hint, forModel = "check the backend's API key (the key file), and for SearXNG that the json format is enabled", misconfiguredHint("it refused its credentials")
	case code >= 300 && code < 400:
		hint, forModel = "the backend redirects (not followed, so the key stays with it): configure the URL it redirects to", misconfiguredHint("it redirects")
	case code == http.StatusNotFound:
		hint, forModel = "check the backend URL: it is not the search API", misconfiguredHint(notSearchAPI)
	}
	return refusal.New(refusal.SearchBackendFailed, who+" answered HTTP "+status).WithHints(hint, forModel)
}

// notSearchAPI is what misconfiguredHint says of a backend URL that
// answers, but not as the search API does.
const notSearchAPI = "its URL is not the search API"

// misconfiguredHint is the hint, for a model, of a backend answer that
// only its configuration can change (why says what is wrong): the model
// can neither read the key file nor change the backend's URL, and
// searching again gets the same answer.
func misconfiguredHint(why string) string {
	return "the search backend is misconfigured (" + why + "): searching again will not help; tell the user, who configures it"
}

// retryAfter parses a Retry-After value: delay-seconds or an HTTP-date.
// It is bounded to a day, rounded to the second.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > 86400 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now).Round(time.Second)
	if d < 0 {
		d = 0
	}
	if d > 24*time.Hour {
		return 0, false
	}
	return d, true
}

// requestError maps an error of the request or the body read to a named
// refusal naming the backend and host:port only: a *url.Error's text
// carries the URL, with the query in it, so it is never used.
func (s *Search) requestError(ctx context.Context, err error) *refusal.Error {
	local := s.origin.IsLocal()
	if r, ok := refusal.As(err); ok {
		return egress.ExplainFailure(r, local, s.origin.Target.Port())
	}
	who := s.who()
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return refusal.Newf(refusal.Timeout, "%s: no complete answer within %s", who, s.opts.Timeout).
			WithHint("the backend is slow or unreachable; try again later").Wrap(err)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return refusal.Newf(refusal.Cancelled, "%s: the call was cancelled", who).Wrap(err)
	case egress.IsTLSFailure(err):
		return refusal.Newf(refusal.TLSError, "%s: the TLS handshake failed (certificate or protocol)", who).
			WithHint("the backend's certificate is not valid for its host or not trusted").Wrap(err)
	}
	return egress.ExplainFailure(refusal.Newf(refusal.ConnectionFailed, "%s: the request failed", who).Wrap(err), local, s.origin.Target.Port())
}
