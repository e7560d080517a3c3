package robotscheck

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/robots"
)

// fetch fetches the robots.txt of the call's origin under its admission
// (ctx) and redirect decision (Redecide), bounded by timeout and
// robots.MaxBytes.
func (call *Call) fetch(ctx context.Context, timeout time.Duration) (robotsFile, bool, error) {
	o, log := call.Origin, call.Log
	if log == nil {
		log = discard
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(context.WithValue(ctx, robotsRequestKey{}, true), http.MethodGet, "", nil)
	if err != nil {
		return robotsFile{}, false, refusal.Newf(refusal.InternalError, "robots.txt of %s: the request could not be built", o.Target)
	}
	req.URL = &url.URL{Scheme: o.Scheme, Host: o.Host(), Path: "/robots.txt"}
	req.Header.Set("User-Agent", call.UserAgent)
	req.Header.Set("Accept", "text/plain,*/*;q=0.5")
	client := *call.Client
	client.CheckRedirect = call.redirect()
	client.Jar = nil

	log.Log(ctx, diag.L3, "robots.txt request", "host", o.Target.Host(), "port", o.Target.Port())
	resp, err := client.Do(req)
	if err != nil {
		return robotsFile{}, false, call.Fail(ctx, timeout, err)
	}
	defer resp.Body.Close()
	file := robotsFile{status: resp.StatusCode}
	keep := true
	switch s := resp.StatusCode; {
	case s >= 200 && s <= 299:
		data, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxBytes+1))
		if err != nil {
			return robotsFile{}, false, call.Fail(ctx, timeout, err)
		}
		file.rules = robots.Parse(data)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		file.deny = true
	case s >= 500:
		file.deny, keep = true, false
	}
	log.Log(ctx, diag.L2, "robots.txt", "host", o.Target.Host(), "port", o.Target.Port(), "status", file.status)
	return file, keep, nil
}

// discard is the logger of a Call without one.
var discard = diag.Discard()

// redirect is the redirect policy of a robots.txt request: a hop on
// the call's own scheme, host and port is a new question to the same
// decision (Redecide), as a page's hop is; a hop anywhere else, or past
// maxRedirects, is not followed, and the redirect answer stands (no
// robots.txt: RFC 9309's "unavailable").
func (call *Call) redirect() func(*http.Request, []*http.Request) error {
	p, again, local := call.Origin, call.Redecide, call.Origin.IsLocal()
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return http.ErrUseLastResponse
		}
		u := req.URL
		o, err := capability.ParseOrigin(strings.ToLower(u.Scheme), u.Hostname(), u.Port())
		if err != nil || u.User != nil || o.Scheme != p.Scheme || o.Target != p.Target {
			return http.ErrUseLastResponse
		}
		if again == nil {
			return refusal.Newf(refusal.InternalError, "robots.txt of %s: no decision step is bound for a redirect hop; not followed", p.Target)
		}
		ad, err := again(req.Context(), o)
		if err != nil {
			return err
		}
		if ad.Target != p.Target || (local && ad.LoopbackPort != p.Target.Port()) || (!local && ad.LoopbackPort != 0) {
			return refusal.Newf(refusal.InternalError, "robots.txt of %s: the decision on a redirect hop admits another target; not followed", p.Target)
		}
		u.Host = o.Host()
		req.Host = ""
		return nil
	}
}
