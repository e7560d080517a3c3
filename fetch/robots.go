package fetch

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/robots"
	"github.com/ocfetch/ocfetch/tool"
)

// RobotsAgent is the product token ocfetch obeys in a robots.txt
// ("User-agent: ocfetch"), whatever User-Agent a call sends.
const RobotsAgent = "ocfetch"

// Defaults of RobotsOptions.
const (
	// DefaultRobotsTimeout bounds fetching one robots.txt, redirects and
	// body included (within the call's own deadline).
	DefaultRobotsTimeout = 10 * time.Second
	// DefaultRobotsOrigins is how many origins' robots.txt are kept.
	DefaultRobotsOrigins = 256
	// DefaultRobotsTTL is how long a robots.txt is kept: RFC 9309 asks
	// crawlers not to use a cached copy for more than 24 hours.
	DefaultRobotsTTL = 24 * time.Hour
	// maxRobotsRedirects is the most same-origin redirects followed for
	// robots.txt (RFC 9309 2.3.1.2: at least five).
	maxRobotsRedirects = 5
)

// robotsHint is what to change when robots.txt refuses a page.
const robotsHint = "the site's robots.txt asks automated clients not to fetch this page, and ocfetch respects it (--respect-robots): " +
	"tell the user, who can open the page in a browser, or fetch it without --respect-robots"

// RobotsOptions configure [NewRobots]. A nil *RobotsOptions is the zero
// value: every field its default.
type RobotsOptions struct {
	// Timeout bounds fetching one robots.txt, redirects and body
	// included; the call's own deadline bounds it too. 0 means
	// DefaultRobotsTimeout.
	Timeout time.Duration
	// MaxOrigins bounds the origins whose robots.txt is kept; past it the
	// least recently used is forgotten. 0 means DefaultRobotsOrigins.
	MaxOrigins int
	// TTL is how long a robots.txt is kept before it is fetched again. 0
	// means DefaultRobotsTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Robots is the robots.txt check of [Options.Robots], and its cache: one
// per session (a process of ocfetch get, an MCP server), shared by every
// Fetch and call of it. It is safe for concurrent use; calls to the same
// origin wait for one fetch of its robots.txt.
//
// Before a call sends anything, its origin's robots.txt is read — fetched
// once per origin and kept (bounded: [RobotsOptions]), through the same
// client, under the same decision as the page: the same scheme, host and
// port, dialled under the admission the broker bound for the call (local
// mode's port, the egress guard, an upstream proxy alike), with redirects
// followed only on that origin, each a new question to the same decision
// (tool.Redecide), as a page's are. Nothing of the call is sent with it:
// no header of the call, no body, no cookie; the User-Agent is the
// Fetch's own. Then, as the MCP reference fetch server does:
//
//   - 2xx: the file (at most robots.MaxBytes of it) is parsed, and a page
//     its rules disallow for [RobotsAgent] is refused, robots_disallowed;
//   - 401 or 403: every page is refused, robots_disallowed;
//   - another 4xx, or a redirect off the origin or past five hops: there
//     is no robots.txt (RFC 9309 "unavailable"), every page is allowed;
//   - 5xx: every page is refused, robots_disallowed (RFC 9309: the file
//     is "unreachable"); not kept, so the next call asks again;
//   - no answer (connection, TLS, timeout): the call fails with that
//     reason, the message naming robots.txt; not kept. A refusal by policy
//     (the guard's address_not_public, a rule revoked) is returned as it is:
//     the page would get the same.
//
// Each redirect hop of the page on its origin is checked against the same
// rules. Messages name the origin, never the page's path or query.
type Robots struct {
	timeout time.Duration
	max     int
	ttl     time.Duration
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // origin → element of lru holding *robotsEntry
	lru     *list.List               // front: most recently used
}

// robotsEntry is one origin's robots.txt: being fetched until done is
// closed, then file or err.
type robotsEntry struct {
	key  string
	done chan struct{}
	file robotsFile
	err  error
	at   time.Time
}

func (e *robotsEntry) ready() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// robotsFile is what an origin's robots.txt says.
type robotsFile struct {
	status int           // the answer's status
	rules  *robots.Rules // a 2xx file, parsed; nil otherwise
	deny   bool          // every page is refused (401, 403, 5xx)
}

// NewRobots returns an empty robots.txt cache configured by o (nil:
// defaults).
func NewRobots(o *RobotsOptions) *Robots {
	var opts RobotsOptions
	if o != nil {
		opts = *o
	}
	r := &Robots{timeout: opts.Timeout, max: opts.MaxOrigins, ttl: opts.TTL, now: opts.Now,
		entries: map[string]*list.Element{}, lru: list.New()}
	if r.timeout <= 0 {
		r.timeout = DefaultRobotsTimeout
	}
	if r.max <= 0 {
		r.max = DefaultRobotsOrigins
	}
	if r.ttl <= 0 {
		r.ttl = DefaultRobotsTTL
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// get returns key's robots.txt: kept, being fetched by another call
// (waited for), or loaded now. load's keep says whether its answer may be
// kept; a failure never is. A call that waited for another's fetch and got
// a failure (perhaps that call's own deadline) loads once itself.
func (r *Robots) get(ctx context.Context, key string, load func(context.Context) (robotsFile, bool, error)) (robotsFile, error) {
	for attempt := 0; ; attempt++ {
		r.mu.Lock()
		var e *robotsEntry
		if el, ok := r.entries[key]; ok {
			e = el.Value.(*robotsEntry)
			if e.ready() && r.now().Sub(e.at) >= r.ttl {
				r.remove(el)
				e = nil
			} else {
				r.lru.MoveToFront(el)
			}
		}
		if e == nil {
			e = &robotsEntry{key: key, done: make(chan struct{})}
			r.insert(e)
			r.mu.Unlock()
			file, keep, err := load(ctx)
			r.mu.Lock()
			e.file, e.err, e.at = file, err, r.now()
			if err != nil || !keep {
				if el, ok := r.entries[key]; ok && el.Value == e {
					r.remove(el)
				}
			}
			close(e.done)
			r.mu.Unlock()
			return file, err
		}
		r.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return robotsFile{}, ctx.Err()
		}
		if e.err == nil || attempt > 0 {
			return e.file, e.err
		}
	}
}

// insert adds e as the most recently used entry, forgetting the least
// recently used finished ones past the bound (one being fetched is kept:
// there are at most as many as calls in flight).
func (r *Robots) insert(e *robotsEntry) {
	for el := r.lru.Back(); el != nil && len(r.entries) >= r.max; {
		prev := el.Prev()
		if el.Value.(*robotsEntry).ready() {
			r.remove(el)
		}
		el = prev
	}
	r.entries[e.key] = r.lru.PushFront(e)
}

func (r *Robots) remove(el *list.Element) {
	delete(r.entries, el.Value.(*robotsEntry).key)
	r.lru.Remove(el)
}

// Len reports how many origins' robots.txt are kept now.
func (r *Robots) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// checkRobots refuses the call's page at u (the first request, or a
// redirect hop on the call's origin) when the origin's robots.txt
// disallows it (see [Robots]).
func (f *Fetch) checkRobots(ctx context.Context, p *prepared, again tool.Redecide, u *url.URL) error {
	rb := f.opts.Robots
	origin := p.scheme + "://" + p.target.String()
	file, err := rb.get(ctx, origin, func(ctx context.Context) (robotsFile, bool, error) {
		return f.fetchRobots(ctx, p, again, rb.timeout)
	})
	if err != nil {
		if _, ok := refusal.As(err); !ok {
			err = f.robotsFailure(ctx, p, rb.timeout, err) // ctx ended while waiting for another call's fetch
		}
		f.logDecision(ctx, "robots.txt not read", err, p)
		return err
	}
	var r *refusal.Error
	switch {
	case file.deny && file.status >= 500:
		r = refusal.Newf(refusal.RobotsDisallowed, "robots.txt of %s answered %d, a server error, which is taken as disallowing every page until it answers (RFC 9309); nothing else was sent",
			origin, file.status)
	case file.deny:
		r = refusal.Newf(refusal.RobotsDisallowed, "robots.txt of %s answered %d, which is taken as disallowing every page (as the MCP reference fetch server does); nothing else was sent",
			origin, file.status)
	case file.rules != nil && !file.rules.Check(RobotsAgent, robotsPath(u)).Allowed:
		r = refusal.Newf(refusal.RobotsDisallowed, "robots.txt of %s disallows this page for user agent %s; nothing else was sent", origin, RobotsAgent)
	default:
		return nil
	}
	r = r.WithHint(robotsHint)
	f.logDecision(ctx, "robots.txt refused", r, p)
	return r
}

// robotsRequestKey marks the context of a robots.txt request.
type robotsRequestKey struct{}

// IsRobotsRequest reports whether r is the robots.txt request of a call
// (Options.Robots), not the call's own: a transport that taps the call's
// response (get -o writes its body to a file) passes it by.
func IsRobotsRequest(r *http.Request) bool {
	v, _ := r.Context().Value(robotsRequestKey{}).(bool)
	return v
}

// robotsPath is what robots.txt rules are matched against: u's path and
// query, as sent.
func robotsPath(u *url.URL) string {
	s := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + u.RawQuery
	}
	return s
}

// fetchRobots fetches the robots.txt of p's origin under the call's
// admission (ctx) and redirect decision (again), bounded by timeout and
// robots.MaxBytes.
func (f *Fetch) fetchRobots(ctx context.Context, p *prepared, again tool.Redecide, timeout time.Duration) (robotsFile, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(context.WithValue(ctx, robotsRequestKey{}, true), http.MethodGet, "", nil)
	if err != nil {
		return robotsFile{}, false, refusal.Newf(refusal.InternalError, "robots.txt of %s: the request could not be built", p.target)
	}
	req.URL = &url.URL{Scheme: p.url.Scheme, Host: p.url.Host, Path: "/robots.txt"}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/plain,*/*;q=0.5")
	client := *f.client
	client.CheckRedirect = f.robotsRedirect(p, again)
	client.Jar = nil

	f.log.Log(ctx, diag.L3, "robots.txt request", "host", p.target.Host(), "port", p.target.Port())
	resp, err := client.Do(req)
	if err != nil {
		return robotsFile{}, false, f.robotsFailure(ctx, p, timeout, err)
	}
	defer resp.Body.Close()
	file := robotsFile{status: resp.StatusCode}
	keep := true
	switch s := resp.StatusCode; {
	case s >= 200 && s <= 299:
		data, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxBytes+1))
		if err != nil {
			return robotsFile{}, false, f.robotsFailure(ctx, p, timeout, err)
		}
		file.rules = robots.Parse(data)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		file.deny = true
	case s >= 500:
		file.deny, keep = true, false
	}
	f.log.Log(ctx, diag.L2, "robots.txt", "host", p.target.Host(), "port", p.target.Port(), "status", file.status)
	return file, keep, nil
}

// robotsRedirect is the redirect policy of a robots.txt request: a hop on
// the call's own scheme, host and port is a new question to the same
// decision (again), as a page's hop is; a hop anywhere else, or past
// maxRobotsRedirects, is not followed, and the redirect answer stands (no
// robots.txt: RFC 9309's "unavailable").
func (f *Fetch) robotsRedirect(p *prepared, again tool.Redecide) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRobotsRedirects {
			return http.ErrUseLastResponse
		}
		u := req.URL
		o, err := capability.ParseOrigin(strings.ToLower(u.Scheme), u.Hostname(), u.Port())
		if err != nil || u.User != nil || o.Scheme != p.scheme || o.Target != p.target {
			return http.ErrUseLastResponse
		}
		if again == nil {
			return refusal.Newf(refusal.InternalError, "robots.txt of %s: no decision step is bound for a redirect hop; not followed", p.target)
		}
		ad, err := again(req.Context(), o)
		if err != nil {
			return err
		}
		if ad.Target != p.target || (p.local && ad.LoopbackPort != p.target.Port()) || (!p.local && ad.LoopbackPort != 0) {
			return refusal.Newf(refusal.InternalError, "robots.txt of %s: the decision on a redirect hop admits another target; not followed", p.target)
		}
		u.Host = o.Host()
		req.Host = ""
		return nil
	}
}

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
			WithHint("ocfetch respects robots.txt (--respect-robots) and could not read it; try again later, or fetch without --respect-robots").Wrap(err)
	}
	r := f.requestError(ctx, p, err)
	if r.Code.Policy() {
		return r
	}
	c := *r
	c.Message = "robots.txt: " + r.Message + "; the page was not fetched"
	if c.Hint == "" {
		c.Hint = "ocfetch respects robots.txt (--respect-robots) and could not read it; try again later, or fetch without --respect-robots"
	}
	return &c
}
