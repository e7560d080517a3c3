package robotscheck

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/robots"
)

// Agent is the product token ocfetch obeys in a robots.txt
// ("User-agent: ocfetch"), whatever User-Agent a call sends.
const Agent = "ocfetch"

// Defaults of Options.
const (
	// DefaultTimeout bounds fetching one robots.txt, redirects and
	// body included (within the call's own deadline).
	DefaultTimeout = 10 * time.Second
	// DefaultOrigins is how many origins' robots.txt are kept.
	DefaultOrigins = 256
	// DefaultTTL is how long a robots.txt is kept: RFC 9309 asks
	// crawlers not to use a cached copy for more than 24 hours.
	DefaultTTL = 24 * time.Hour
	// maxRedirects is the most same-origin redirects followed for
	// robots.txt (RFC 9309 2.3.1.2: at least five).
	maxRedirects = 5
)

// robotsHint is what to change when robots.txt refuses a page.
const robotsHint = "the site's robots.txt asks automated clients not to fetch this page, and ocfetch respects it (--respect-robots): " +
	"tell the user, who can open the page in a browser, or fetch it without --respect-robots"

// robotsModelHint is robotsHint worded for a model: --respect-robots is
// the server's flag, not the model's to drop.
const robotsModelHint = "the site's robots.txt asks automated clients not to fetch this page, and this server respects it: " +
	"do not retry it; tell the user, who can open the page in a browser"

// Options configure [New]. A nil *Options is the zero
// value: every field its default.
type Options struct {
	// Timeout bounds fetching one robots.txt, redirects and body
	// included; the call's own deadline bounds it too. 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxOrigins bounds the origins whose robots.txt is kept; past it the
	// least recently used is forgotten. 0 means DefaultOrigins.
	MaxOrigins int
	// TTL is how long a robots.txt is kept before it is fetched again. 0
	// means DefaultTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Checker is the robots.txt check of fetch.Options.Robots, and its cache: one
// per session (a process of ocfetch get, an MCP server), shared by every
// Fetch and call of it. It is safe for concurrent use; calls to the same
// origin wait for one fetch of its robots.txt.
//
// Before a call sends anything, its origin's robots.txt is read — fetched
// once per origin and kept (bounded: [Options]), through the same
// client, under the same decision as the page: the same scheme, host and
// port, dialled under the admission the broker bound for the call (local
// mode's port, the egress guard, an upstream proxy alike), with redirects
// followed only on that origin, each a new question to the same decision
// (tool.Redecide), as a page's are. Nothing of the call is sent with it:
// no header of the call, no body, no cookie; the User-Agent is the
// Fetch's own. Then, as the MCP reference fetch server does:
//
//   - 2xx: the file (at most robots.MaxBytes of it) is parsed, and a page
//     its rules disallow for [Agent] is refused, robots_disallowed;
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
type Checker struct {
	timeout time.Duration
	max     int
	ttl     time.Duration
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // origin → element of lru holding *entry
	lru     *list.List               // front: most recently used
}

// entry is one origin's robots.txt: being fetched until done is
// closed, then file or err.
type entry struct {
	key  string
	done chan struct{}
	file robotsFile
	err  error
	at   time.Time
}

func (e *entry) ready() bool {
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

// New returns an empty robots.txt cache configured by o (nil:
// defaults).
func New(o *Options) *Checker {
	var opts Options
	if o != nil {
		opts = *o
	}
	r := &Checker{timeout: opts.Timeout, max: opts.MaxOrigins, ttl: opts.TTL, now: opts.Now,
		entries: map[string]*list.Element{}, lru: list.New()}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.max <= 0 {
		r.max = DefaultOrigins
	}
	if r.ttl <= 0 {
		r.ttl = DefaultTTL
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
func (r *Checker) get(ctx context.Context, key string, load func(context.Context) (robotsFile, bool, error)) (robotsFile, error) {
	for attempt := 0; ; attempt++ {
		r.mu.Lock()
		var e *entry
		if el, ok := r.entries[key]; ok {
			e = el.Value.(*entry)
			if e.ready() && r.now().Sub(e.at) >= r.ttl {
				r.remove(el)
				e = nil
			} else {
				r.lru.MoveToFront(el)
			}
		}
		if e == nil {
			e = &entry{key: key, done: make(chan struct{})}
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
func (r *Checker) insert(e *entry) {
	for el := r.lru.Back(); el != nil && len(r.entries) >= r.max; {
		prev := el.Prev()
		if el.Value.(*entry).ready() {
			r.remove(el)
		}
		el = prev
	}
	r.entries[e.key] = r.lru.PushFront(e)
}

func (r *Checker) remove(el *list.Element) {
	delete(r.entries, el.Value.(*entry).key)
	r.lru.Remove(el)
}

// Len reports how many origins' robots.txt are kept now.
func (r *Checker) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}
