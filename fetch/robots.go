package fetch

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/tool"
)

// checkRobots refuses the call's page at u (the first request, or a
// redirect hop on the call's origin) when the origin's robots.txt
// disallows it (Options.Robots, see robotscheck.Checker). The robots.txt
// request goes through the Fetch's client with its User-Agent, under the
// call's admission (ctx) and redirect decision (again); a failure to read
// it is named as the page's would be (robotsFailure).
func (f *Fetch) checkRobots(ctx context.Context, p *prepared, again tool.Redecide, u *url.URL) error {
	return f.opts.Robots.Check(ctx, &robotscheck.Call{
		Client:    f.client,
		UserAgent: f.userAgent,
		Origin:    p.origin,
		Redecide:  again,
		Fail: func(ctx context.Context, timeout time.Duration, err error) *refusal.Error {
			return f.robotsFailure(ctx, p, timeout, err)
		},
		Log:        f.log,
		LogRefusal: func(ctx context.Context, msg string, err error) { f.logDecision(ctx, msg, err, p) },
	}, u)
}

// robotsUnreadableHint is what to change when robots.txt could not be read.
const robotsUnreadableHint = "ocfetch respects robots.txt (--respect-robots) and could not read it; try again later, or fetch without --respect-robots"

// robotsUnreadableModelHint is robotsUnreadableHint worded for a model,
// which cannot drop the server's --respect-robots.
const robotsUnreadableModelHint = "this server respects robots.txt and could not read it; try again later, or tell the user, who can open the page in a browser"

// robotsFailure maps a failure to read robots.txt: a refusal by policy
// (the guard, a redirect hop's decision) as it is, since the page would
// get the same; anything else as the page's failure would be (timeout,
// tls_error, connection_failed, cancelled), its message naming robots.txt.
func (f *Fetch) robotsFailure(ctx context.Context, p *prepared, timeout time.Duration, err error) *refusal.Error {
	if r, ok := refusal.As(err); ok && r.Code.Policy() {
		return r
	}
	origin := p.scheme + "://" + p.target.String()
	if isTimeout(ctx, err) && !errors.Is(err, context.Canceled) {
		return refusal.Newf(refusal.Timeout, "robots.txt of %s: no complete answer in time (at most %s); the page was not fetched", origin, timeout).
			WithHints(robotsUnreadableHint, robotsUnreadableModelHint).Wrap(err)
	}
	r := f.requestError(ctx, p, err)
	if r.Code.Policy() {
		return r
	}
	c := *r
	c.Message = "robots.txt: " + r.Message + "; the page was not fetched"
	if c.Hint == "" {
		c.Hint, c.ModelHint = robotsUnreadableHint, robotsUnreadableModelHint
	}
	return &c
}
