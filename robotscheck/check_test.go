package robotscheck

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/tool"
)

// site is a loopback origin whose /robots.txt is served by robots,
// counting its requests.
type site struct {
	hits   atomic.Int32
	robots http.Handler
	call   *Call
	base   string
}

// newSite serves robots on loopback and returns the Call of a local-mode
// call to it: a plain client (loopback only), a Redecide admitting the
// same origin again, and a Fail that names the error's kind.
func newSite(t *testing.T, robots http.Handler) *site {
	t.Helper()
	s := &site{robots: robots}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "test-agent" {
			http.Error(w, "wrong User-Agent", http.StatusTeapot)
			return
		}
		if r.URL.Path == "/robots.txt" {
			s.hits.Add(1)
		}
		s.robots.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	o, err := capability.OriginOf(u)
	if err != nil {
		t.Fatal(err)
	}
	s.base = srv.URL
	s.call = &Call{
		Client:    srv.Client(),
		UserAgent: "test-agent",
		Origin:    o,
		Redecide: func(_ context.Context, hop capability.Origin) (tool.Admission, error) {
			return tool.Admission{Target: hop.Target, LoopbackPort: hop.Target.Port()}, nil
		},
		Fail: func(_ context.Context, _ time.Duration, err error) *refusal.Error {
			if r, ok := refusal.As(err); ok {
				return r
			}
			return refusal.New(refusal.ConnectionFailed, "robots.txt: failed").Wrap(err)
		},
	}
	return s
}

func (s *site) page(t *testing.T, path string) *url.URL {
	t.Helper()
	u, err := url.Parse(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func text(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	})
}

func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		io.WriteString(w, "User-agent: *\nAllow: /\n") // not read: the status decides
	})
}

// TestCheckVerdicts: what each answer of robots.txt means for a page,
// and that a refusal names the origin, never the page's path or query.
func TestCheckVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		robots http.Handler
		path   string
		want   refusal.Code // "" allowed
	}{
		{"disallowed for ocfetch", text("User-agent: ocfetch\nDisallow: /private\n"), "/private/x?secret=1", refusal.RobotsDisallowed},
		{"allowed for ocfetch", text("User-agent: ocfetch\nDisallow: /private\n"), "/public", ""},
		{"another agent's rule", text("User-agent: other\nDisallow: /\n"), "/private", ""},
		{"401 refuses every page", status(http.StatusUnauthorized), "/a", refusal.RobotsDisallowed},
		{"403 refuses every page", status(http.StatusForbidden), "/a", refusal.RobotsDisallowed},
		{"404 allows", status(http.StatusNotFound), "/a", ""},
		{"503 refuses", status(http.StatusServiceUnavailable), "/a", refusal.RobotsDisallowed},
		{"redirect off the origin allows", http.RedirectHandler("http://other.invalid/robots.txt", http.StatusFound), "/a", ""},
		// A URL without a path is sent as "/" + its query: "Disallow: /"
		// covers it, and a rule on the query matches it.
		{"no path, a query: the root's rules", text("User-agent: *\nDisallow: /\n"), "?secret=1", refusal.RobotsDisallowed},
		{"no path, a query rule", text("User-agent: *\nDisallow: /?secret\n"), "?secret=1", refusal.RobotsDisallowed},
		{"no path, no query", text("User-agent: *\nDisallow: /$\n"), "", refusal.RobotsDisallowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, tc.robots)
			err := New(nil).Check(context.Background(), s.call, s.page(t, tc.path))
			if got := refusal.CodeOf(err); got != tc.want {
				t.Fatalf("code %q (%v); want %q", got, err, tc.want)
			}
			if err != nil && (strings.Contains(err.Error(), "private") || strings.Contains(err.Error(), "secret")) {
				t.Errorf("message %q names the page's path or query", err)
			}
		})
	}
}

// TestCheckCache: an origin's robots.txt is fetched once and kept; a 5xx
// is not kept; the TTL and MaxOrigins bound what is kept.
func TestCheckCache(t *testing.T) {
	ctx := context.Background()
	t.Run("kept", func(t *testing.T) {
		s := newSite(t, text("User-agent: *\nDisallow: /x\n"))
		c := New(nil)
		for range 3 {
			c.Check(ctx, s.call, s.page(t, "/a"))
		}
		if n := s.hits.Load(); n != 1 || c.Len() != 1 {
			t.Errorf("robots.txt requested %d times, Len %d; want 1, 1", n, c.Len())
		}
	})
	t.Run("5xx not kept", func(t *testing.T) {
		s := newSite(t, status(http.StatusBadGateway))
		c := New(nil)
		for range 2 {
			c.Check(ctx, s.call, s.page(t, "/a"))
		}
		if n := s.hits.Load(); n != 2 || c.Len() != 0 {
			t.Errorf("robots.txt requested %d times, Len %d; want 2, 0", n, c.Len())
		}
	})
	t.Run("TTL", func(t *testing.T) {
		s := newSite(t, text(""))
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		c := New(&Options{TTL: time.Hour, Now: func() time.Time { return now }})
		c.Check(ctx, s.call, s.page(t, "/a"))
		now = now.Add(59 * time.Minute)
		c.Check(ctx, s.call, s.page(t, "/a"))
		now = now.Add(time.Minute)
		c.Check(ctx, s.call, s.page(t, "/a"))
		if n := s.hits.Load(); n != 2 {
			t.Errorf("robots.txt requested %d times; want 2 (kept for an hour, then asked again)", n)
		}
	})
	t.Run("MaxOrigins", func(t *testing.T) {
		c := New(&Options{MaxOrigins: 2})
		a, b, d := newSite(t, text("")), newSite(t, text("")), newSite(t, text(""))
		for _, s := range []*site{a, b, d, a} {
			c.Check(ctx, s.call, s.page(t, "/"))
			if c.Len() > 2 {
				t.Fatalf("Len %d; want at most MaxOrigins 2", c.Len())
			}
		}
		if n := a.hits.Load(); n != 2 {
			t.Errorf("the first origin's robots.txt requested %d times; want 2 (forgotten, then asked again)", n)
		}
	})
}

// TestCheckFailure: no answer is named by the call's Fail and not kept;
// the robots.txt request is marked (IsRobotsRequest) and the call's
// client is not mutated.
func TestCheckFailure(t *testing.T) {
	s := newSite(t, text(""))
	var marked atomic.Bool
	s.call.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		marked.Store(IsRobotsRequest(r))
		return nil, errors.New("connection refused")
	})}
	c := New(nil)
	err := c.Check(context.Background(), s.call, s.page(t, "/a"))
	if got := refusal.CodeOf(err); got != refusal.ConnectionFailed {
		t.Fatalf("code %q; want %q, from the call's Fail", got, refusal.ConnectionFailed)
	}
	if !marked.Load() {
		t.Error("IsRobotsRequest false for the robots.txt request; want true")
	}
	if c.Len() != 0 {
		t.Errorf("Len %d after a failure; want 0 (not kept)", c.Len())
	}
	if s.call.Client.CheckRedirect != nil {
		t.Error("the call's client was mutated: CheckRedirect set")
	}
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNormalPath: dot segments (also written %2e) and runs of "/" go as
// RFC 3986 5.2.4 and a default nginx take them; anything else is kept.
func TestNormalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/":                  "/",
		"/a/b":               "/a/b",
		"/a/b/":              "/a/b/",
		"/x/../private":      "/private",
		"/x/%2e%2e/private":  "/private",
		"/x/.%2E/private":    "/private",
		"/./private":         "/private",
		"/%2e/private":       "/private",
		"/a/..":              "/",
		"/..":                "/",
		"/../../private":     "/private",
		"/a/.":               "/a/",
		"/a/./":              "/a/",
		"//private":          "/private",
		"/a//b///c":          "/a/b/c",
		"/a/.../b":           "/a/.../b",
		"/a/..b/c":           "/a/..b/c",
		"/file.txt":          "/file.txt",
		"/a/%2e%2e%2e/b":     "/a/%2e%2e%2e/b",
		"/private/x/../y/./": "/private/y/",
	} {
		if got := normalPath(in); got != want {
			t.Errorf("normalPath(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestCheckDotSegments: a page reached through dot segments or repeated
// slashes is checked as the path a server serves for it too, so that
// "Disallow: /private" covers "/x/../private"; the form as sent is still
// checked, and a path that is allowed either way is allowed.
func TestCheckDotSegments(t *testing.T) {
	for _, tc := range []struct {
		name, robots, path string
		want               refusal.Code
	}{
		{"dot-dot into a disallowed path", "User-agent: *\nDisallow: /private\n", "/x/../private/a", refusal.RobotsDisallowed},
		{"encoded dot-dot", "User-agent: *\nDisallow: /private\n", "/x/%2e%2e/private", refusal.RobotsDisallowed},
		{"a dot segment", "User-agent: *\nDisallow: /private\n", "/./private?q=1", refusal.RobotsDisallowed},
		{"repeated slashes", "User-agent: *\nDisallow: /private\n", "//private", refusal.RobotsDisallowed},
		{"a query rule after dot segments", "User-agent: *\nDisallow: /a?secret\n", "/b/../a?secret=1", refusal.RobotsDisallowed},
		{"the form as sent is disallowed", "User-agent: *\nDisallow: /x/\n", "/x/../public", refusal.RobotsDisallowed},
		{"allowed both ways", "User-agent: *\nDisallow: /private\n", "/x/../public", ""},
		{"dots inside a name", "User-agent: *\nDisallow: /private\n", "/a..b/private.txt", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, text(tc.robots))
			err := New(nil).Check(context.Background(), s.call, s.page(t, tc.path))
			if got := refusal.CodeOf(err); got != tc.want {
				t.Fatalf("code %q (%v); want %q", got, err, tc.want)
			}
			if err != nil && (strings.Contains(err.Error(), "private") || strings.Contains(err.Error(), "secret")) {
				t.Errorf("message %q names the page's path or query", err)
			}
		})
	}
}

// FuzzNormalPath: for any path starting with "/", the normal form starts
// with "/", holds no run of "/" and no dot segment, and is its own normal
// form.
func FuzzNormalPath(f *testing.F) {
	for _, seed := range []string{"/", "/x/../private", "//a//", "/%2e%2E/./..", "/a/.../b", "/a/."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		n := normalPath(p)
		if !strings.HasPrefix(n, "/") || strings.Contains(n, "//") {
			t.Fatalf("normalPath(%q) = %q", p, n)
		}
		for _, seg := range strings.Split(n, "/") {
			if dots(seg) != 0 {
				t.Fatalf("normalPath(%q) = %q keeps the dot segment %q", p, n, seg)
			}
		}
		if again := normalPath(n); again != n {
			t.Fatalf("normalPath(%q) = %q, whose normal form is %q", p, n, again)
		}
	})
}
