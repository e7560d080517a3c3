package mcpserver

import (
	"fmt"
	"io"
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
		io.Copy(io.Discard, resp.Body) // an entry is kept once its body is read to the end
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

// countingOrigin is a public https origin (testnet) whose handler counts
// the body bytes it managed to write, per path: /big is 10 MiB, /endless
// never ends (100 bytes every 10 ms), /page is 5000 bytes. Both ends of
// every connection get small socket buffers (which also turns the
// kernel's autotuning off), so what the server wrote is what the client
// read plus a few buffers — the test can tell 1 KB read from 10 MB.
type countingOrigin struct {
	eo      *egress.Options
	hits    atomic.Int32
	written atomic.Int64  // body bytes of /big and /endless accepted by Write
	done    chan struct{} // one value each time a /big or /endless handler returns
}

func startCountingOrigin(t *testing.T) *countingOrigin {
	o := &countingOrigin{done: make(chan struct{}, 16)}
	public := netip.MustParseAddr("93.184.215.14")
	chunk := []byte(strings.Repeat("x", 1000))
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		switch r.URL.Path {
		case "/page":
			fmt.Fprint(w, strings.Repeat("p", 5000))
			return
		case "/big":
			defer func() { o.done <- struct{}{} }()
			w.Header().Set("Content-Length", fmt.Sprint(10<<20))
			for range (10 << 20) / len(chunk) {
				n, err := w.Write(chunk)
				o.written.Add(int64(n))
				if err != nil {
					return
				}
			}
			w.Write(chunk[:(10<<20)%len(chunk)])
		case "/endless":
			defer func() { o.done <- struct{}{} }()
			rc := http.NewResponseController(w)
			for {
				n, err := w.Write(chunk[:100])
				o.written.Add(int64(n))
				if err == nil {
					err = rc.Flush()
				}
				if err != nil {
					return
				}
				select {
				case <-r.Context().Done():
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443), SocketBuffer: 4096})
	o.eo = &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: pub.Dial, RootCAs: pub.RootCAs}
	return o
}

// handlerDone waits, bounded, for one /big or /endless handler to return,
// so that its byte count is final.
func (o *countingOrigin) handlerDone(t *testing.T) {
	t.Helper()
	select {
	case <-o.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the origin's handler is still writing 10 s after the call returned")
	}
}

// TestCacheObeysMaxBytes: with the cache on (the default), a GET reads no
// more of the body than the call's max_bytes allows (counted on the
// server's side), and an endless slow body ends as a truncated page, not a
// timeout — as with the cache off.
func TestCacheObeysMaxBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cacheTTL time.Duration
		path     string
		maxBytes int
	}{
		{"10 MB body, cache on", 0, "/big", 1000},
		{"10 MB body, cache off", -1, "/big", 1000},
		{"endless slow body, cache on", 0, "/endless", 2048},
		{"endless slow body, cache off", -1, "/endless", 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := startCountingOrigin(t)
			ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
			cs := connect(t, &Options{Root: ws.Root, Egress: o.eo, CacheTTL: tc.cacheTTL}, clientSpec{})
			res := callFetch(t, cs, fmt.Sprintf(`{"url": "https://example.com%s", "format": "raw", "max_bytes": %d, "timeout": 20}`, tc.path, tc.maxBytes))
			if res.IsError {
				t.Fatalf("got an error %q; want the truncated page", text(res))
			}
			out := structured(t, res)
			if !out.BodyTruncated || out.Bytes != int64(tc.maxBytes) || out.Cached {
				t.Errorf("body_truncated %v, bytes %d, cached %v; want true, %d, false", out.BodyTruncated, out.Bytes, out.Cached, tc.maxBytes)
			}
			o.handlerDone(t)
			// What the server wrote beyond max_bytes sat in the socket and
			// TLS buffers (small here): far from the 10 MB the cache used
			// to read in full.
			if w := o.written.Load(); w > 256<<10 {
				t.Errorf("the server wrote %d body bytes for max_bytes %d; want at most 256 KiB", w, tc.maxBytes)
			}
		})
	}
}

// TestCacheKeepsWholeBodiesOnly: a body the call's max_bytes cut is not
// kept, so a later call that allows more reads it again in full; a whole
// body is kept and a later call with a smaller max_bytes gets it cut as
// the network would.
func TestCacheKeepsWholeBodiesOnly(t *testing.T) {
	o := startCountingOrigin(t)
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: o.eo}, clientSpec{})
	for i, st := range []struct {
		name          string
		maxBytes      int // 0: none (the server's cap)
		wantBytes     int64
		wantTruncated bool
		wantCached    bool
		wantHits      int32
	}{
		{"cut at 1000", 1000, 1000, true, false, 1},
		{"cut again: nothing was kept", 1000, 1000, true, false, 2},
		{"a larger call is not served the cut body", 0, 5000, false, false, 3},
		{"the whole body is kept", 0, 5000, false, true, 3},
		{"exactly the body's size", 5000, 5000, false, true, 3},
		{"a smaller call gets the kept body cut", 1000, 1000, true, true, 3},
	} {
		args := `{"url": "https://example.com/page", "format": "raw"}`
		if st.maxBytes > 0 {
			args = fmt.Sprintf(`{"url": "https://example.com/page", "format": "raw", "max_bytes": %d}`, st.maxBytes)
		}
		res := callFetch(t, cs, args)
		if res.IsError {
			t.Fatalf("step %d (%s): %s", i, st.name, text(res))
		}
		out := structured(t, res)
		if out.Bytes != st.wantBytes || out.BodyTruncated != st.wantTruncated || out.Cached != st.wantCached || o.hits.Load() != st.wantHits {
			t.Errorf("step %d (%s): bytes %d, body_truncated %v, cached %v, origin requests %d; want %d, %v, %v, %d",
				i, st.name, out.Bytes, out.BodyTruncated, out.Cached, o.hits.Load(), st.wantBytes, st.wantTruncated, st.wantCached, st.wantHits)
		}
	}
}
