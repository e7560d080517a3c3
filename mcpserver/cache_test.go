package mcpserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testnet"
	"github.com/ocfetch/ocfetch/internal/testws"
)

// longPage is a text body of several windows of 100 characters.
var longPage = strings.Repeat("0123456789", 35)

// cacheOrigin is a public https origin (through testnet, nothing leaves
// the machine) that counts its requests and serves longPage with the
// Cache-Control of its path: /no-store, /private, else none.
func cacheOrigin(t *testing.T) (*egress.Options, *atomic.Int32) {
	var hits atomic.Int32
	public := netip.MustParseAddr("93.184.215.14")
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/no-store":
			w.Header().Set("Cache-Control", "no-store")
		case "/private":
			w.Header().Set("Cache-Control", "max-age=60, private")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, longPage)
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	return &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: pub.Dial, RootCAs: pub.RootCAs}, &hits
}

func windowArgs(url string, start int) string {
	return fmt.Sprintf(`{"url": %q, "format": "raw", "max_length": 100, "start_index": %d}`, url, start)
}

func structured(t *testing.T, res *mcp.CallToolResult) Output {
	t.Helper()
	var o Output
	remarshal(t, res.StructuredContent, &o)
	return o
}

// TestCacheWindows: the windows of one page come from one response; the
// result says which came from the cache; every call is still audited.
func TestCacheWindows(t *testing.T) {
	eo, hits := cacheOrigin(t)
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: eo}, clientSpec{})
	var got strings.Builder
	for i, start := range []int{0, 100, 200, 300} {
		res := callFetch(t, cs, windowArgs("https://example.com/page", start))
		if res.IsError {
			t.Fatalf("window %d: %s", i, text(res))
		}
		o := structured(t, res)
		if o.Cached != (i > 0) {
			t.Errorf("window %d: cached %v; want %v", i, o.Cached, i > 0)
		}
		if i > 0 {
			if _, err := time.Parse(time.RFC3339, o.FetchedAt); err != nil || !strings.Contains(text(res), "from ocfetch's response cache: fetched "+o.FetchedAt) {
				t.Errorf("window %d: fetched_at %q (%v), text %q; want the fetch time in both", i, o.FetchedAt, err, text(res))
			}
		}
		txt := text(res)
		got.WriteString(txt[strings.Index(txt, "01234"):][:min(100, len(longPage)-start)])
	}
	if hits.Load() != 1 {
		t.Errorf("origin saw %d requests for 4 windows; want 1", hits.Load())
	}
	if got.String() != longPage {
		t.Errorf("windows joined are not the page")
	}
	if n := len(auditLines(t, ws)); n != 4 {
		t.Errorf("%d audit lines; want 4 (a hit is audited as a call)", n)
	}
	// Other request headers are another entry.
	callFetch(t, cs, `{"url": "https://example.com/page", "headers": {"Accept-Language": "fr"}}`)
	if hits.Load() != 2 {
		t.Errorf("origin saw %d requests after other headers; want 2", hits.Load())
	}
	// A denied target stays denied, cache or not.
	ws2 := trustedWS(t, testws.Spec{})
	cs2 := connect(t, &Options{Root: ws2.Root, Egress: eo}, clientSpec{})
	if res := callFetch(t, cs2, windowArgs("https://example.com/page", 0)); !res.IsError {
		t.Errorf("uncovered target: %s; want not_approved", text(res))
	}
}

// TestCacheNotKept: no-store, private, POST, and local mode make a request
// each time.
func TestCacheNotKept(t *testing.T) {
	eo, hits := cacheOrigin(t)
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: eo}, clientSpec{})
	for _, tc := range []struct{ name, args string }{
		{"no-store", windowArgs("https://example.com/no-store", 0)},
		{"private", windowArgs("https://example.com/private", 0)},
		{"POST", `{"url": "https://example.com/page", "method": "POST", "body": "x"}`},
	} {
		before := hits.Load()
		for range 2 {
			if res := callFetch(t, cs, tc.args); res.IsError || structured(t, res).Cached {
				t.Errorf("%s: %s; want a fresh response", tc.name, text(res))
			}
		}
		if n := hits.Load() - before; n != 2 {
			t.Errorf("%s: origin saw %d requests for 2 calls; want 2", tc.name, n)
		}
	}

	var local atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local.Add(1)
		fmt.Fprint(w, longPage)
	}))
	t.Cleanup(srv.Close)
	lws := localWorkspace(t, portOf(t, srv.URL), strings.TrimPrefix(srv.URL, "http://"))
	lcs := connect(t, &Options{Root: lws.Root}, clientSpec{})
	for range 2 {
		if res := callFetch(t, lcs, windowArgs(srv.URL, 0)); res.IsError || structured(t, res).Cached {
			t.Errorf("local mode: %s; want a fresh response", text(res))
		}
	}
	if n := local.Load(); n != 2 {
		t.Errorf("local mode: the dev server saw %d requests for 2 calls; want 2", n)
	}
}

// TestCacheExpiry: with an injected clock, an entry is served until its
// TTL and fetched again after.
func TestCacheExpiry(t *testing.T) {
	var hits atomic.Int32
	next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hits.Add(1)
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c := newResponseCache(next, time.Minute, 2, 1<<20)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	get := func(url string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		resp, err := c.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	steps := []struct {
		name    string
		later   time.Duration
		url     string
		wantHit bool
	}{
		{"first", 0, "https://a.example/", false},
		{"within the TTL", 59 * time.Second, "https://a.example/", true},
		{"at the TTL", 60 * time.Second, "https://a.example/", false},
		{"fresh again", 61 * time.Second, "https://a.example/", true},
		{"b", 61 * time.Second, "https://b.example/", false},
		{"c evicts the least recently used (a)", 61 * time.Second, "https://c.example/", false},
		{"a was evicted", 61 * time.Second, "https://a.example/", false},
		{"c still there", 61 * time.Second, "https://c.example/", true},
	}
	base := now
	for _, st := range steps {
		now = base.Add(st.later)
		before := hits.Load()
		get(st.url)
		if hit := hits.Load() == before; hit != st.wantHit {
			t.Errorf("%s: hit %v; want %v", st.name, hit, st.wantHit)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
