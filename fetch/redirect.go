package fetch

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// checkRedirect returns the redirect policy of one run: a hop is followed
// only to the same scheme, normalised host and port as the approved
// requirement, at most maxRedirects times, and in local mode only if the
// allowlist still admits the port (it is read again on every hop). Anything
// else is refused before the next request is sent (http.Client consults
// CheckRedirect before sending, so a 307/308 never replays a POST body off
// target). A refusal names the redirect target's origin
// (scheme://host:port) only, never its path or query.
//
// A followed hop's URL host is rewritten to the normalised ASCII form, so
// the host on the wire stays the approved one whatever the Location spells.
func (f *Fetch) checkRedirect(p *prepared) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		err := f.redirectHop(p, req, len(via))
		if err != nil {
			f.logDecision(req.Context(), "redirect refused", err, p)
			return err
		}
		f.log.Log(req.Context(), diag.L3, "redirect followed", "method", req.Method, "host", p.target.Host, "port", p.target.Port, "hop", len(via))
		return nil
	}
}

func (f *Fetch) redirectHop(p *prepared, req *http.Request, hop int) error {
	if hop > maxRedirects {
		return refusal.Newf(refusal.TooManyRedirects, "%s %s: more than %d redirects; not followed", p.method, p.target.Host, maxRedirects).
			WithHint("the server redirects in a loop or a long chain; fetch the final URL directly if you know it")
	}
	u := req.URL
	if u.User != nil {
		return refusal.Newf(refusal.CredentialsInURL, "%s %s: a redirect location carries credentials; not followed", p.method, p.target.Host)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to a %s:// URL, off the approved target; not followed",
			p.method, p.target.Host, safetext.Short(scheme))
	}
	host, herr := capability.NormalizeHost(u.Hostname())
	if herr != nil {
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to an invalid host; not followed", p.method, p.target.Host)
	}
	var port uint16
	switch ps := u.Port(); {
	case ps != "":
		var err error
		if port, err = capability.ParsePort(ps); err != nil {
			return refusal.Newf(refusal.RedirectOffTarget, "%s %s: redirected to an invalid port; not followed", p.method, p.target.Host)
		}
	case scheme == "https":
		port = 443
	case scheme == "http":
		port = 80
	}
	if scheme != p.scheme || host != p.target.Host || port != p.target.Port {
		origin := safetext.Short(scheme) + "://" + net.JoinHostPort(host, strconv.Itoa(int(port)))
		return refusal.Newf(refusal.RedirectOffTarget, "%s %s://%s: redirected to %s, off the approved target; not followed",
			p.method, p.scheme, p.target, origin).
			WithHint("redirects are followed only to the same scheme, host and port; fetch " + origin + " in a new call if you want it (it needs its own approval)")
	}
	urlHost := hostForMessage(host)
	if u.Port() != "" {
		urlHost = net.JoinHostPort(host, u.Port())
	}
	u.Host = urlHost
	req.Host = ""
	if p.local {
		hop := *p
		hop.origin = scheme + "://" + urlHost + "/"
		if err := f.admitLocal(&hop); err != nil {
			return err
		}
	}
	return nil
}
