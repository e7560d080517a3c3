package fetch

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/tool"
)

// checkRedirect returns the redirect policy of one run: a hop is followed
// only to the same scheme, normalised host and port as the approved
// requirement, at most maxRedirects times, and only when the decision
// admits the hop again: again is the broker's tool.Redecide, the same
// policy.Decide asked about the hop's origin with every file read again
// (seed 000: a port revoked while the chain runs stops it). Anything
// else is refused before the next request is sent (http.Client consults
// CheckRedirect before sending, so a 307/308 never replays a POST body off
// target). A refusal names the redirect target's origin
// (scheme://host:port) only, never its path or query.
//
// A followed hop's URL host is rewritten to the normalised ASCII form, so
// the host on the wire stays the approved one whatever the Location spells.
func (f *Fetch) checkRedirect(p *prepared, again tool.Redecide) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		err := f.redirectHop(p, again, req, len(via))
		if err != nil {
			f.logDecision(req.Context(), "redirect refused", err, p)
			return err
		}
		if f.log.Enabled(req.Context(), diag.L3) {
			f.log.Log(req.Context(), diag.L3, "redirect followed", "method", req.Method, "host", p.target.Host(), "port", p.target.Port(), "hop", len(via))
		}
		return nil
	}
}

// offTarget carries a refused off-target redirect to the caller: the full
// Location, resolved against the URL of the request it answered (the
// http.Client has already resolved it), and the redirect response's status
// and bounded headers. It rides in the refusal's cause chain, whose text is
// never printed; its Error() names nothing. InvokableRun moves it into
// tool.Result.RedirectTo and the structured output, which go to the caller
// only: the Location follows from the user's own request and may carry
// tokens, so it never reaches a log, an audit line or a diagnostic.
type offTarget struct {
	location string
	from     string
	status   int
	header   map[string]string
}

func (*offTarget) Error() string { return "redirect off target" }

func newOffTarget(req *http.Request) *offTarget {
	t := &offTarget{location: req.URL.String()}
	if r := req.Response; r != nil {
		t.status = r.StatusCode
		t.header = localfetch.BoundedResponseHeaders(r.Header)
		if r.Request != nil && r.Request.URL != nil {
			t.from = r.Request.URL.String()
		}
	}
	return t
}

// redirectResult is the error result of a refused off-target redirect: the
// refusal, plus RedirectTo and a structured output describing the redirect
// response (status, the URL that answered with it, its header summary), so
// a caller can make a new call for RedirectTo that is decided on its own.
func redirectResult(p *prepared, err error, t *offTarget) *tool.Result {
	res := tool.ErrorResult(err)
	res.Content += "\nredirect_to: " + t.location
	res.RedirectTo = t.location
	res.Structured = Output{
		Status:     t.status,
		URL:        t.from,
		Headers:    headersOrEmpty(t.header),
		Format:     p.format,
		RedirectTo: t.location,
	}
	return res
}

func (f *Fetch) redirectHop(p *prepared, again tool.Redecide, req *http.Request, hop int) error {
	if hop > maxRedirects {
		return refusal.Newf(refusal.TooManyRedirects, "%s %s: more than %d redirects; not followed", p.method, p.target.Host(), maxRedirects).
			WithHint("the server redirects in a loop or a long chain; fetch the final URL directly if you know it")
	}
	u := req.URL
	if u.User != nil {
		return refusal.Newf(refusal.CredentialsInURL, "%s %s: a redirect location carries credentials; not followed", p.method, p.target.Host())
	}
	scheme := strings.ToLower(u.Scheme)
	if capability.DefaultPort(scheme) == 0 {
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to a %s:// URL, off the approved target; not followed",
			p.method, p.target.Host(), safetext.Short(scheme))
	}
	o, err := capability.ParseOrigin(scheme, u.Hostname(), u.Port())
	switch {
	case errors.Is(err, capability.ErrInvalidHost):
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to an invalid host; not followed", p.method, p.target.Host())
	case err != nil:
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to an invalid port; not followed", p.method, p.target.Host())
	}
	if o.Scheme != p.scheme || o.Target != p.target {
		where := o.Scheme + "://" + o.Target.String()
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s://%s: redirected to %s, off the approved target; not followed",
			p.method, p.scheme, p.target, where).
			WithHint("redirects are followed only to the same scheme, host and port; fetch redirect_to in a new call if you want it (it is decided on its own)").
			Wrap(newOffTarget(req))
	}
	if again == nil {
		return refusal.Newf(refusal.InternalError, "%s %s: no decision step is bound for a redirect hop; not followed", p.method, p.target.Host())
	}
	ad, err := again(req.Context(), o)
	if err != nil {
		return err
	}
	if ad.Target != p.target || (p.local && ad.LoopbackPort != p.target.Port()) || (!p.local && ad.LoopbackPort != 0) {
		return refusal.Newf(refusal.InternalError, "%s %s: the decision on a redirect hop admits another target; not followed", p.method, p.target.Host())
	}
	if f.opts.Robots != nil {
		if err := f.checkRobots(req.Context(), p, again, u); err != nil {
			return err
		}
	}
	u.Host = o.Host()
	req.Host = ""
	return nil
}
