package fetch

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/tool"
	"go.uber.org/goleak"
)

// robotsSite is a loopback site whose /robots.txt is served by robots and
// every other path by a page that counts its requests.
type robotsSite struct {
	robotsHits atomic.Int32
	pageHits   atomic.Int32
	robots     http.Handler
}

func (s *robotsSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" || strings.HasPrefix(r.URL.Path, "/robots-") {
		if r.URL.Path == "/robots.txt" {
			s.robotsHits.Add(1)
		}
		if ua := r.Header.Get("User-Agent"); ua != DefaultUserAgent {
			http.Error(w, "robots.txt asked with User-Agent "+ua, http.StatusTeapot)
			return
		}
		if r.Header.Get("X-Call") != "" || r.Header.Get("Cookie") != "" {
			http.Error(w, "robots.txt asked with the call's headers", http.StatusTeapot)
			return
		}
		s.robots.ServeHTTP(w, r)
		return
	}
	s.pageHits.Add(1)
	if r.URL.Path == "/hop" {
		http.Redirect(w, r, "/private/after-hop", http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "page "+r.URL.Path)
}

func robotsText(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	})
}

func robotsStatus(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A body that would disallow everything if it were read.
		w.WriteHeader(code)
		io.WriteString(w, "User-agent: *\nDisallow: /\n")
	})
}

// TestRobotsVerdicts: what the site's robots.txt answers, and what the
// call gets — as the MCP reference fetch server does (a 401 or 403
// refuses, another 4xx allows), a 5xx refusing (RFC 9309) — with the page
// never requested when refused, and no path or query in the message.
func TestRobotsVerdicts(t *testing.T) {
	const disallowPrivate = "User-agent: *\nDisallow: /private\n"
	tests := []struct {
		name   string
		robots http.Handler
		path   string
		want   refusal.Code // "" delivered
	}{
		{"disallowed path", robotsText(disallowPrivate), "/private/secret-page?token=abc", refusal.RobotsDisallowed},
		{"allowed path", robotsText(disallowPrivate), "/public", ""},
		{"wildcard and anchor", robotsText("User-agent: *\nDisallow: /*.pdf$\n"), "/docs/a.pdf", refusal.RobotsDisallowed},
		{"anchor misses with a query", robotsText("User-agent: *\nDisallow: /*.pdf$\n"), "/docs/a.pdf?v=2", ""},
		{"query rule", robotsText("User-agent: *\nDisallow: /*?session=\n"), "/p?session=1", refusal.RobotsDisallowed},
		{"allow beats a shorter disallow", robotsText("User-agent: *\nDisallow: /\nAllow: /open\n"), "/open/page", ""},
		{"our group beats the global one", robotsText("User-agent: *\nDisallow: /\n\nUser-agent: ocfetch\nAllow: /\n"), "/page", ""},
		{"our group disallows", robotsText("User-agent: *\nAllow: /\n\nUser-agent: OCFetch/2\nDisallow: /\n"), "/page", refusal.RobotsDisallowed},
		{"other crawlers' group only", robotsText("User-agent: GPTBot\nDisallow: /\n"), "/page", ""},
		{"empty file", robotsText(""), "/page", ""},
		{"not a robots file", robotsText("<html><body>Welcome</body></html>"), "/page", ""},
		{"404 allows", robotsStatus(http.StatusNotFound), "/page", ""},
		{"410 allows", robotsStatus(http.StatusGone), "/page", ""},
		{"429 allows", robotsStatus(http.StatusTooManyRequests), "/page", ""},
		{"401 refuses", robotsStatus(http.StatusUnauthorized), "/page", refusal.RobotsDisallowed},
		{"403 refuses", robotsStatus(http.StatusForbidden), "/page", refusal.RobotsDisallowed},
		{"500 refuses", robotsStatus(http.StatusInternalServerError), "/page", refusal.RobotsDisallowed},
		{"503 refuses", robotsStatus(http.StatusServiceUnavailable), "/page", refusal.RobotsDisallowed},
		{"same-origin redirect followed", hostile.RedirectTo("/robots-real.txt", http.StatusMovedPermanently), "/page", refusal.RobotsDisallowed},
		{"off-origin redirect not followed", hostile.RedirectTo("http://127.0.0.2:1/robots.txt", http.StatusFound), "/page", ""},
		{"redirect to another scheme not followed", hostile.RedirectTo("https://127.0.0.1/robots.txt", http.StatusFound), "/page", ""},
		{"redirect loop past five hops", hostile.RedirectTo("/robots.txt", http.StatusFound), "/page", ""},
		{"a redirect hop of the page is checked", robotsText("User-agent: *\nDisallow: /private\n"), "/hop", refusal.RobotsDisallowed},
		{"no path, only a query: sent as /?…, covered by Disallow: /", robotsText("User-agent: *\nDisallow: /\n"), "?token=abc", refusal.RobotsDisallowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, &Options{Robots: robotscheck.New(nil)})
			mux := http.NewServeMux()
			site := &robotsSite{robots: tc.robots}
			mux.Handle("/", site)
			mux.Handle("/robots-real.txt", robotsText("User-agent: *\nDisallow: /\n"))
			base, _ := h.serve(mux)
			res := call(context.Background(), h.f, argsJSON(t, map[string]any{"url": base + tc.path, "headers": map[string]string{"X-Call": "secret"}}))
			if tc.want == "" {
				out := output(t, res)
				if want := "page " + strings.SplitN(tc.path, "?", 2)[0]; out.Content != want {
					t.Errorf("content %q; want %q", out.Content, want)
				}
			} else {
				wantError(t, res, tc.want)
				if tc.path != "/hop" && site.pageHits.Load() != 0 {
					t.Errorf("the page was requested %d times; want none after robots.txt refused it", site.pageHits.Load())
				}
				if !strings.Contains(res.Message, "robots.txt of http://127.0.0.1:") || res.Hint == "" {
					t.Errorf("message %q hint %q; want the origin named and a hint", res.Message, res.Hint)
				}
			}
			for _, secret := range []string{"private", "secret", "token", "session", "pdf", "after-hop"} {
				if strings.Contains(res.Message+res.Hint, secret) {
					t.Errorf("message %q or hint %q holds %q of the page's path or query", res.Message, res.Hint, secret)
				}
			}
			if n := site.robotsHits.Load(); n < 1 {
				t.Errorf("robots.txt requested %d times; want at least once", n)
			}
		})
	}
}

// TestRobotsOff: without Options.Robots nothing but the page is requested.
func TestRobotsOff(t *testing.T) {
	h := newHarness(t, nil)
	site := &robotsSite{robots: robotsText("User-agent: *\nDisallow: /\n")}
	base, _ := h.serve(site)
	output(t, call(context.Background(), h.f, `{"url": "`+base+`/page"}`))
	if n := site.robotsHits.Load(); n != 0 {
		t.Errorf("robots.txt requested %d times without Options.Robots; want 0", n)
	}
}

// TestRobotsCache: an origin's robots.txt is fetched once per session —
// across calls, Fetches sharing the Robots, and concurrent calls — until
// its TTL; a 5xx or a failure is not kept; the cache is bounded.
func TestRobotsCache(t *testing.T) {
	t.Run("second call does not refetch", func(t *testing.T) {
		rb := robotscheck.New(nil)
		h := newHarness(t, &Options{Robots: rb})
		site := &robotsSite{robots: robotsText("User-agent: *\nDisallow: /private\n")}
		base, _ := h.serve(site)
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`))
		wantError(t, call(context.Background(), h.f, `{"url": "`+base+`/private"}`), refusal.RobotsDisallowed)
		other := newFetch(h.client, &Options{Robots: rb}, h.ws, risk.Permissive) // another call's Fetch, as the MCP server makes
		output(t, call(context.Background(), other, `{"url": "`+base+`/b"}`))
		if n := site.robotsHits.Load(); n != 1 {
			t.Errorf("robots.txt requested %d times for three calls; want 1", n)
		}
		if rb.Len() != 1 {
			t.Errorf("Len %d; want 1", rb.Len())
		}
	})
	t.Run("concurrent calls fetch once", func(t *testing.T) {
		h := newHarness(t, &Options{Robots: robotscheck.New(nil)})
		site := &robotsSite{robots: robotsText("User-agent: *\nDisallow: /private\n")}
		base, _ := h.serve(site)
		var wg sync.WaitGroup
		results := make([]*tool.Result, 6)
		for i := range results {
			wg.Go(func() { results[i] = call(context.Background(), h.f, `{"url": "`+base+`/a"}`) })
		}
		wg.Wait()
		for _, res := range results {
			output(t, res)
		}
		if n := site.robotsHits.Load(); n != 1 {
			t.Errorf("robots.txt requested %d times for six concurrent calls; want 1", n)
		}
	})
	t.Run("a 5xx is asked again", func(t *testing.T) {
		h := newHarness(t, &Options{Robots: robotscheck.New(nil)})
		var down atomic.Bool
		down.Store(true)
		site := &robotsSite{robots: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		})}
		base, _ := h.serve(site)
		wantError(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`), refusal.RobotsDisallowed)
		down.Store(false)
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`))
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/b"}`))
		if n := site.robotsHits.Load(); n != 2 {
			t.Errorf("robots.txt requested %d times; want 2 (the 503 not kept, the 200 kept)", n)
		}
	})
	t.Run("kept until the TTL", func(t *testing.T) {
		var mu sync.Mutex
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		h := newHarness(t, &Options{Robots: robotscheck.New(&robotscheck.Options{TTL: time.Hour, Now: clock})})
		site := &robotsSite{robots: robotsText("")}
		base, _ := h.serve(site)
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`))
		mu.Lock()
		now = now.Add(59 * time.Minute)
		mu.Unlock()
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`))
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		output(t, call(context.Background(), h.f, `{"url": "`+base+`/a"}`))
		if n := site.robotsHits.Load(); n != 2 {
			t.Errorf("robots.txt requested %d times; want 2 (kept for an hour, then asked again)", n)
		}
	})
	t.Run("bounded in origins", func(t *testing.T) {
		rb := robotscheck.New(&robotscheck.Options{MaxOrigins: 2})
		h := newHarness(t, &Options{Robots: rb})
		var sites []*robotsSite
		var bases []string
		for range 3 {
			s := &robotsSite{robots: robotsText("")}
			base, _ := h.serve(s)
			sites, bases = append(sites, s), append(bases, base)
		}
		for _, i := range []int{0, 1, 2, 0} {
			output(t, call(context.Background(), h.f, `{"url": "`+bases[i]+`/a"}`))
			if rb.Len() > 2 {
				t.Fatalf("Len %d; want at most MaxOrigins 2", rb.Len())
			}
		}
		if a, b, c := sites[0].robotsHits.Load(), sites[1].robotsHits.Load(), sites[2].robotsHits.Load(); a != 2 || b != 1 || c != 1 {
			t.Errorf("robots.txt requests %d %d %d; want 2 1 1 (the first origin forgotten, then asked again)", a, b, c)
		}
	})
}

// TestRobotsBounds: a huge, endless or silent robots.txt costs at most
// robots.MaxBytes and the robots timeout.
func TestRobotsBounds(t *testing.T) {
	huge := "User-agent: *\nDisallow: /early\n" + strings.Repeat("# padding line\n", 40000) + "Disallow: /late\n"
	if len(huge) < 512<<10 {
		t.Fatalf("the huge file has %d bytes; want more than 512 KiB", len(huge))
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	silent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	tests := []struct {
		name   string
		robots http.Handler
		path   string
		want   refusal.Code
	}{
		{"a rule within 512 KiB counts", robotsText(huge), "/early", refusal.RobotsDisallowed},
		{"a rule past 512 KiB is ignored", robotsText(huge), "/late", ""},
		{"an endless body is cut", hostile.EndlessBody(), "/page", ""},
		{"a gzip bomb is cut after decompression", hostile.GzipBomb(1 << 20), "/page", ""},
		{"a silent server times out", silent, "/page", refusal.Timeout},
		{"a trickling body times out", hostile.Trickle(50 * time.Millisecond), "/page", refusal.Timeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Only the timeout scenarios run on a short deadline: reading
			// 512 KiB or a decompressed bomb under -race on a loaded machine
			// can take longer than 300ms, and those cases must not time out.
			timeout := robotscheck.DefaultTimeout
			if tc.want == refusal.Timeout {
				timeout = 300 * time.Millisecond
			}
			h := newHarness(t, &Options{Robots: robotscheck.New(&robotscheck.Options{Timeout: timeout})})
			site := &robotsSite{robots: tc.robots}
			base, _ := h.serve(site)
			res := call(context.Background(), h.f, `{"url": "`+base+tc.path+`"}`)
			if tc.want == "" {
				output(t, res)
				return
			}
			wantError(t, res, tc.want)
			if tc.want == refusal.Timeout && (!strings.HasPrefix(res.Message, "robots.txt of ") || !strings.Contains(res.Hint, "--respect-robots")) {
				t.Errorf("message %q hint %q; want robots.txt named and the flag in the hint", res.Message, res.Hint)
			}
			if site.pageHits.Load() != 0 {
				t.Errorf("the page was requested; want nothing sent after robots.txt failed")
			}
		})
	}
}

// TestRobotsPublicHTTPS: over https through the egress guard (internal/
// testnet), robots.txt is fetched from the same checked address as the
// page, a host the guard refuses is refused as the page would be (nothing
// dialled), and a robots.txt redirect to another host is not followed.
func TestRobotsPublicHTTPS(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	var robotsHosts []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		robotsHosts = append(robotsHosts, r.Host)
		mu.Unlock()
		if r.Host == "www.example.com" {
			http.Redirect(w, r, "https://example.com/robots.txt", http.StatusMovedPermanently)
			return
		}
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "page")
	})
	pub := testnet.StartPublicTLS(t, mux, nil)
	client := egress.NewClient(&egress.Options{
		Resolver: testnet.Resolver{
			"example.com":     {netip.MustParseAddr("93.184.216.34")},
			"www.example.com": {netip.MustParseAddr("93.184.216.36")},
			"internal.test":   {netip.MustParseAddr("10.0.0.1")},
		},
		RootCAs: pub.RootCAs, Timeout: 5 * time.Second, Dial: pub.Dial,
	})
	t.Cleanup(func() { pub.Server.Close(); client.CloseIdleConnections(); goleak.VerifyNone(t, ignore) })
	f := newFetch(client, &Options{Robots: robotscheck.New(nil)}, testScope{}.ws, risk.Standard)

	wantError(t, call(context.Background(), f, `{"url": "https://example.com/private/x"}`), refusal.RobotsDisallowed)
	output(t, call(context.Background(), f, `{"url": "https://example.com/public"}`))
	wantError(t, call(context.Background(), f, `{"url": "https://internal.test/page"}`), refusal.AddressNotPublic)
	// www's robots.txt redirects to the apex: another origin, not
	// followed, so www has no robots.txt and its /private is allowed.
	output(t, call(context.Background(), f, `{"url": "https://www.example.com/private/x"}`))

	mu.Lock()
	defer mu.Unlock()
	if want := []string{"example.com", "www.example.com"}; strings.Join(robotsHosts, " ") != strings.Join(want, " ") {
		t.Errorf("robots.txt asked of %q; want %q (once per origin, no redirect followed off www)", robotsHosts, want)
	}
	for _, a := range pub.Dials.List() {
		if a != "93.184.216.34:443" && a != "93.184.216.36:443" {
			t.Errorf("guard dialled %s; want only the checked public addresses", a)
		}
	}
}
