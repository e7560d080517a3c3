package respcache

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCacheExpiry: with an injected clock, an entry is served until its
// TTL and fetched again after.
func TestCacheExpiry(t *testing.T) {
	var hits atomic.Int32
	next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hits.Add(1)
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := New(&Options{TTL: time.Minute, MaxEntries: 2, MaxBytes: 1 << 20, Now: func() time.Time { return now }})
	get := func(url string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		var hit Hit
		resp, err := c.Transport(next, &hit).RoundTrip(req)
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

// TestCacheRequestDirectives: a request that asks for a fresh answer
// (Cache-Control no-cache, no-store or max-age=0, Pragma no-cache) is
// never answered from the cache, however often it is repeated, and what it
// gets is not kept; another header only makes its own entry.
func TestCacheRequestDirectives(t *testing.T) {
	for _, tc := range []struct {
		name       string
		header     http.Header
		wantCached bool
	}{
		{"Cache-Control no-cache", http.Header{"Cache-Control": {"no-cache"}}, false},
		{"Cache-Control NO-CACHE among others", http.Header{"Cache-Control": {"max-stale=10, NO-CACHE"}}, false},
		{"Cache-Control no-store", http.Header{"Cache-Control": {"no-store"}}, false},
		{"Cache-Control max-age=0", http.Header{"Cache-Control": {"max-age=0"}}, false},
		{"Pragma no-cache", http.Header{"Pragma": {"no-cache"}}, false},
		{"another header", http.Header{"X-Anything": {"1"}}, true},
		{"no header", http.Header{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent atomic.Int32
			next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("body")), Request: r}, nil
			})
			c := New(nil)
			for i := range 3 {
				req, _ := http.NewRequest(http.MethodGet, "https://a.example/page", nil)
				req.Header = tc.header.Clone()
				var hit Hit
				resp, err := c.Transport(next, &hit).RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if want := tc.wantCached && i > 0; hit.Hit != want {
					t.Errorf("call %d: from the cache %v; want %v", i+1, hit.Hit, want)
				}
			}
			want := int32(3)
			if tc.wantCached {
				want = 1
			}
			if n := sent.Load(); n != want {
				t.Errorf("%d requests sent for 3 calls; want %d", n, want)
			}
			if !tc.wantCached && c.lru.Len() != 0 {
				t.Errorf("%d entries kept; want none", c.lru.Len())
			}
		})
	}
}

// TestCacheStatuses: a response is kept only with a status RFC 9110 (15.1)
// lets a cache reuse without explicit freshness (200, 203, 204, 300, 301,
// 308, 404, 405, 410, 414): a 429 asking to retry later, a temporary
// redirect, a 401 or 403 of a login or bot wall, a 408 are asked again
// on the next call. Nor is a response that varies on "*" (RFC 9111 4.1).
func TestCacheStatuses(t *testing.T) {
	for _, tc := range []struct {
		status int
		header http.Header
		kept   bool
	}{
		{200, nil, true},
		{203, nil, true},
		{204, nil, true},
		{301, http.Header{"Location": {"/b"}}, true},
		{308, http.Header{"Location": {"/b"}}, true},
		{404, nil, true},
		{410, nil, true},
		{200, http.Header{"Vary": {"*"}}, false},
		{200, http.Header{"Vary": {"Accept-Language, *"}}, false},
		{200, http.Header{"Vary": {"Accept-Language"}}, true}, // the key holds every request header
		{302, http.Header{"Location": {"/login"}}, false},
		{303, http.Header{"Location": {"/b"}}, false},
		{307, http.Header{"Location": {"/b"}}, false},
		{400, nil, false},
		{401, nil, false},
		{403, nil, false},
		{408, nil, false},
		{429, http.Header{"Retry-After": {"5"}}, false},
		{500, nil, false},
		{503, nil, false},
	} {
		name := http.StatusText(tc.status)
		if v := tc.header.Get("Vary"); v != "" {
			name += ", Vary " + v
		}
		t.Run(name, func(t *testing.T) {
			var sent atomic.Int32
			next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				h := tc.header.Clone()
				if h == nil {
					h = http.Header{}
				}
				return &http.Response{StatusCode: tc.status, Header: h, Body: io.NopCloser(strings.NewReader("body")), Request: r}, nil
			})
			c := New(nil)
			for range 2 {
				req, _ := http.NewRequest(http.MethodGet, "https://a.example/page", nil)
				var hit Hit
				resp, err := c.Transport(next, &hit).RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			want := int32(2)
			if tc.kept {
				want = 1
			}
			if n := sent.Load(); n != want {
				t.Errorf("%d requests sent for 2 calls; want %d (kept: %v)", n, want, tc.kept)
			}
		})
	}
}

// TestCacheNonPositiveBounds: a bound of 0 or less takes its default; a
// negative MaxEntries used to panic on the first store (the eviction loop
// ran past an empty list).
func TestCacheNonPositiveBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"zero", Options{}},
		{"negative MaxEntries", Options{MaxEntries: -1}},
		{"negative MaxBytes", Options{MaxBytes: -1}},
		{"negative TTL", Options{TTL: -time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("body")), Request: r}, nil
			})
			c := New(&tc.opts)
			for i := range 2 {
				req, _ := http.NewRequest(http.MethodGet, "https://a.example/page", nil)
				var hit Hit
				resp, err := c.Transport(next, &hit).RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if want := i == 1; hit.Hit != want {
					t.Errorf("call %d: from the cache %v; want %v (the defaults)", i+1, hit.Hit, want)
				}
			}
		})
	}
}

// TestCacheKeyKeepsNoCredential: the cache keys an entry by its request's
// headers, credentials included, but keeps none of their values past the
// call (fetchargs: Authorization and Cookie are not kept across calls), nor
// the URL's query, and a key's size does not grow with the request's;
// a request that differs in any header, credential or not, or in the
// query, is not answered with another's entry.
func TestCacheKeyKeepsNoCredential(t *testing.T) {
	const secret = "s3cret-value"
	long := strings.Repeat("q", 10<<10)
	for _, tc := range []struct {
		name   string
		url    string
		header http.Header
		other  http.Header // a request for the same URL that must not be served the entry
	}{
		{"Authorization", "https://a.example/p", http.Header{"Authorization": {"Bearer " + secret}}, http.Header{"Authorization": {"Bearer other"}}},
		{"Cookie", "https://a.example/p", http.Header{"Cookie": {"session=" + secret}}, http.Header{}},
		{"a custom header", "https://a.example/p", http.Header{"X-Api-Key": {secret}}, http.Header{"X-Api-Key": {secret + "2"}}},
		{"the query", "https://a.example/p?token=" + secret, http.Header{}, http.Header{"X-Other": {"1"}}},
		{"a long query", "https://a.example/p?token=" + secret + long, http.Header{}, http.Header{"Accept": {"text/plain"}}},
		{"names and values do not run together", "https://a.example/p", http.Header{"A": {"b\nC: " + secret}}, http.Header{"A": {"b"}, "C": {secret}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent atomic.Int32
			next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("body")), Request: r}, nil
			})
			c := New(nil)
			get := func(h http.Header) bool {
				req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
				req.Header = h.Clone()
				var hit Hit
				resp, err := c.Transport(next, &hit).RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return hit.Hit
			}
			get(tc.header)
			if !get(tc.header) {
				t.Fatal("the same request again: not from the cache")
			}
			if get(tc.other) {
				t.Error("a request with other headers was answered from the first one's entry")
			}
			for k, el := range c.byKey {
				if key := el.Value.(*cacheEntry).key; strings.Contains(k, secret) || strings.Contains(key, secret) {
					t.Errorf("a key holds the secret value: %.80q", k)
				}
				if len(k) > 64 {
					t.Errorf("a key of %d bytes; want at most 64, whatever the request's size", len(k))
				}
			}
		})
	}
}
