package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/respcache"
	"github.com/ocfetch/ocfetch/risk"
)

// longPage is a text body of several windows of 100 characters.
var longPage = strings.Repeat("0123456789", 35)

func windowArgs(url string, start int) string {
	return fmt.Sprintf(`{"url": %q, "format": "raw", "max_length": 100, "start_index": %d}`, url, start)
}

// TestCacheNotKept: no-store, private, POST, a Range request, and local
// mode make a request each time; a kept response says when it was fetched,
// in the Output and on the model's last text line.
func TestCacheNotKept(t *testing.T) {
	var hits atomic.Int32
	ph := newPublicHarness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/no-store":
			w.Header().Set("Cache-Control", "no-store")
		case "/private":
			w.Header().Set("Cache-Control", "max-age=60, private")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, longPage)
	}), false)
	f := newFetch(ph.client, &Options{Cache: respcache.New(nil)}, testScope{}.ws, risk.Standard)
	for _, tc := range []struct {
		name, args string
		kept       bool
	}{
		{"no-store", windowArgs("https://example.com/no-store", 0), false},
		{"private", windowArgs("https://example.com/private", 0), false},
		{"POST", `{"url": "https://example.com/page", "method": "POST", "body": "x"}`, false},
		{"Range", `{"url": "https://example.com/page", "headers": {"Range": "bytes=0-9"}}`, false},
		{"GET", windowArgs("https://example.com/page", 0), true},
	} {
		before := hits.Load()
		for i := range 2 {
			res := call(context.Background(), f, tc.args)
			out := output(t, res)
			cached := tc.kept && i == 1
			if out.Cached != cached {
				t.Errorf("%s, call %d: cached %v; want %v", tc.name, i+1, out.Cached, cached)
			}
			if cached {
				if _, err := time.Parse(time.RFC3339, out.FetchedAt); err != nil || !strings.HasSuffix(res.Content, "\n\n(from ocfetch's response cache: fetched "+out.FetchedAt+")") {
					t.Errorf("%s: fetched_at %q (%v), text ends %q; want the fetch time in both", tc.name, out.FetchedAt, err, res.Content[max(0, len(res.Content)-80):])
				}
			}
		}
		want := int32(2)
		if tc.kept {
			want = 1
		}
		if n := hits.Load() - before; n != want {
			t.Errorf("%s: origin saw %d requests for 2 calls; want %d", tc.name, n, want)
		}
	}

	h := newHarness(t, &Options{Cache: respcache.New(nil)})
	var local atomic.Int32
	base, _ := h.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local.Add(1)
		fmt.Fprint(w, longPage)
	}))
	for range 2 {
		if out := output(t, call(context.Background(), h.f, windowArgs(base+"/", 0))); out.Cached {
			t.Error("local mode: cached; want a fresh response")
		}
	}
	if n := local.Load(); n != 2 {
		t.Errorf("local mode: the dev server saw %d requests for 2 calls; want 2", n)
	}
}

// countingOrigin is a public https origin (testnet) whose handler counts
// the body bytes it managed to write, per path: /big is 10 MiB, /endless
// never ends (100 bytes every 10 ms), /page is 5000 bytes. Both ends of
// every connection get small socket buffers (which also turns the
// kernel's autotuning off), so what the server wrote is what the client
// read plus a few buffers — the test can tell 1 KB read from 10 MB.
type countingOrigin struct {
	client  *http.Client
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
	o.client = egress.NewClient(&egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: pub.Dial, RootCAs: pub.RootCAs, Timeout: 30 * time.Second})
	t.Cleanup(o.client.CloseIdleConnections)
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

// TestCacheObeysMaxBytes: with the cache on, a GET reads no
// more of the body than the call's max_bytes allows (counted on the
// server's side), and an endless slow body ends as a truncated page, not a
// timeout — as with the cache off.
func TestCacheObeysMaxBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cache    *respcache.Cache
		path     string
		maxBytes int
	}{
		{"10 MB body, cache on", respcache.New(nil), "/big", 1000},
		{"10 MB body, cache off", nil, "/big", 1000},
		{"endless slow body, cache on", respcache.New(nil), "/endless", 2048},
		{"endless slow body, cache off", nil, "/endless", 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := startCountingOrigin(t)
			f := newFetch(o.client, &Options{Cache: tc.cache}, testScope{}.ws, risk.Standard)
			out := output(t, call(context.Background(), f, fmt.Sprintf(`{"url": "https://example.com%s", "format": "raw", "max_bytes": %d, "timeout": 20}`, tc.path, tc.maxBytes)))
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
	f := newFetch(o.client, &Options{Cache: respcache.New(nil)}, testScope{}.ws, risk.Standard)
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
		res := call(context.Background(), f, args)
		if res.IsError {
			t.Fatalf("step %d (%s): %s", i, st.name, res.Message)
		}
		out := output(t, res)
		if out.Bytes != st.wantBytes || out.BodyTruncated != st.wantTruncated || out.Cached != st.wantCached || o.hits.Load() != st.wantHits {
			t.Errorf("step %d (%s): bytes %d, body_truncated %v, cached %v, origin requests %d; want %d, %v, %v, %d",
				i, st.name, out.Bytes, out.BodyTruncated, out.Cached, o.hits.Load(), st.wantBytes, st.wantTruncated, st.wantCached, st.wantHits)
		}
	}
}
