package mcpserver

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
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

// TestCacheWindows: the server configures fetch's response cache
// (Options.CacheTTL): the windows of one page come from one response; the
// result says which came from the cache, in its structured content and its
// text; every call is still audited. --cache-ttl 0 (CacheTTL -1) turns it
// off. The cache itself is tested in fetch (cache_test.go).
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
	// CacheTTL -1 (--cache-ttl 0): every window is fetched.
	off := connect(t, &Options{Root: ws.Root, Egress: eo, CacheTTL: -1}, clientSpec{})
	before := hits.Load()
	for _, start := range []int{0, 100} {
		if res := callFetch(t, off, windowArgs("https://example.com/page", start)); res.IsError || structured(t, res).Cached {
			t.Errorf("cache off, window %d: %s; want a fresh response", start, text(res))
		}
	}
	if n := hits.Load() - before; n != 2 {
		t.Errorf("cache off: origin saw %d requests for 2 windows; want 2", n)
	}
}
