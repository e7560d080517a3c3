package robotscheck

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/robots"
	"github.com/ocfetch/ocfetch/tool"
)

// Call is one call's side of a check: what the caller (the Fetch tool)
// injects so that its origin's robots.txt is fetched as its page is —
// through its client, under its admission and redirect decision — and a
// failure is named as its page's would be. The package imports no caller.
type Call struct {
	// Client is the call's client, whose transport dials under the
	// admission carried on the check's context. It is never mutated: the
	// robots.txt request goes through a shallow copy with its own
	// redirect policy and no cookie jar. Required.
	Client *http.Client
	// UserAgent is the caller's own User-Agent, the only header of the
	// request that is not the package's; nothing of the call is sent.
	UserAgent string
	// Origin is the call's origin as the caller parsed it once: scheme,
	// normalised host and port (the robots.txt URL's authority is
	// Origin.Host), local mode when the host is local.
	Origin capability.Origin
	// Redecide is the call's decision, asked again for every redirect
	// hop of the robots.txt request on the call's origin; nil refuses
	// such a hop (internal_error).
	Redecide tool.Redecide
	// Fail names a failure to get an answer for robots.txt (the error of
	// the request or of its body, or the context's when the call ended
	// while waiting for another call's fetch), timeout being the
	// Checker's bound: a refusal by policy as it is, anything else as the
	// page's failure would be, its message naming robots.txt. Required.
	Fail func(ctx context.Context, timeout time.Duration, err error) *refusal.Error
	// Log receives the detail lines of the robots.txt request (diag.L3)
	// and its answer (diag.L2): host, port, status. nil discards.
	Log *slog.Logger
	// LogRefusal, if set, writes the caller's one line for a refusal:
	// msg is "robots.txt not read" or "robots.txt refused".
	LogRefusal func(ctx context.Context, msg string, err error)
}

// Check refuses the call's page at u (the first request, or a redirect
// hop on the call's origin) when the origin's robots.txt disallows it
// (see [Checker]); nil lets the page be fetched. Every error is a
// *refusal.Error naming the origin, never u's path or query.
func (c *Checker) Check(ctx context.Context, call *Call, u *url.URL) error {
	o := call.Origin
	origin := o.Scheme + "://" + o.Target.String()
	file, err := c.get(ctx, origin, func(ctx context.Context) (robotsFile, bool, error) {
		return call.fetch(ctx, c.timeout)
	})
	if err != nil {
		if _, ok := refusal.As(err); !ok {
			err = call.Fail(ctx, c.timeout, err) // ctx ended while waiting for another call's fetch
		}
		call.logRefusal(ctx, "robots.txt not read", err)
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
	case file.rules != nil && !allowed(file.rules, u):
		r = refusal.Newf(refusal.RobotsDisallowed, "robots.txt of %s disallows this page for user agent %s; nothing else was sent", origin, Agent)
	default:
		return nil
	}
	r = r.WithHints(robotsHint, robotsModelHint)
	call.logRefusal(ctx, "robots.txt refused", r)
	return r
}

func (call *Call) logRefusal(ctx context.Context, msg string, err error) {
	if call.LogRefusal != nil {
		call.LogRefusal(ctx, msg, err)
	}
}

// robotsRequestKey marks the context of a robots.txt request.
type robotsRequestKey struct{}

// IsRobotsRequest reports whether r is the robots.txt request of a call
// (fetch.Options.Robots), not the call's own: a transport that taps the call's
// response (get -o writes its body to a file) passes it by.
func IsRobotsRequest(r *http.Request) bool {
	v, _ := r.Context().Value(robotsRequestKey{}).(bool)
	return v
}

// allowed reports whether rules let Agent fetch u: its path as sent and,
// where the path holds dot segments or repeated slashes, the path a server
// may well serve for it (RFC 3986 5.2.4's dot segments removed, "%2e"
// read as ".", runs of "/" merged, as nginx does by default) must both be
// allowed. "/x/../private" is "/private" to most servers, and a check of
// the form as written alone would let it pass "Disallow: /private".
func allowed(rules *robots.Rules, u *url.URL) bool {
	sent := robotsPath(u)
	if !rules.Check(Agent, sent).Allowed {
		return false
	}
	path, query, _ := strings.Cut(sent, "?")
	served := normalPath(path)
	if served == path {
		return true
	}
	if query != "" || strings.Contains(sent, "?") {
		served += "?" + query
	}
	return rules.Check(Agent, served).Allowed
}

// robotsPath is what robots.txt rules are matched against: u's path and
// query, as sent — an empty path is "/" ("https://host?q" asks for
// "/?q"), so "Disallow: /" covers it.
func robotsPath(u *url.URL) string {
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + u.RawQuery
	}
	return s
}

// normalPath is p (an escaped path starting with "/") with its dot
// segments removed ("." and "..", either written "%2e"), as RFC 3986
// 5.2.4 removes them — a ".." above the root stays at the root, and a
// path ending in a dot segment keeps its final "/" — and runs of "/"
// merged into one. A path with neither is returned as it is.
func normalPath(p string) string {
	if !strings.Contains(p, ".") && !strings.Contains(p, "//") && !strings.Contains(strings.ToLower(p), "%2e") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 1, len(segs)) // out[0] is the root's empty segment
	for i, seg := range segs[1:] {
		last := i == len(segs)-2
		switch dots(seg) {
		case 1:
		case 2:
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		default:
			if seg != "" || last {
				out = append(out, seg)
			}
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	if len(out) == 1 {
		return "/"
	}
	return strings.Join(out, "/")
}

// dots is 1 for a "." segment, 2 for "..", 0 otherwise; "%2e" (either
// case) counts as a dot.
func dots(seg string) int {
	n := 0
	for seg != "" {
		switch {
		case seg[0] == '.':
			seg = seg[1:]
		case len(seg) >= 3 && seg[0] == '%' && seg[1] == '2' && (seg[2] == 'e' || seg[2] == 'E'):
			seg = seg[3:]
		default:
			return 0
		}
		if n++; n > 2 {
			return 0
		}
	}
	return n
}
