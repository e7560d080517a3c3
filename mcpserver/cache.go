package mcpserver

import (
	"bytes"
	"container/list"
	"context"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of the response cache ([Options.CacheTTL] and friends).
const (
	DefaultCacheTTL        = 15 * time.Minute
	DefaultCacheMaxEntries = 256
	DefaultCacheMaxBytes   = 64 << 20
)

// responseCache is the MCP server's in-memory response cache, a
// RoundTripper in front of the guarded transport: paging through a long
// page (windows of max_length) reads one response, not one per window.
// It keeps GET responses only, keyed by the whole URL and the request
// headers, for ttl, bounded in entries and bytes (least recently used
// out first); it never keeps a response marked Cache-Control no-store or
// private, a 5xx, a partial response, a body its reader did not read to
// the end (see [recordingBody]), or anything of a loopback host (local
// mode: a dev server changes). Every call is still decided and audited by
// the broker; a hit only saves the network request.
type responseCache struct {
	next       http.RoundTripper
	ttl        time.Duration
	maxEntries int
	maxBytes   int64
	now        func() time.Time

	mu    sync.Mutex
	byKey map[string]*list.Element // of *cacheEntry
	lru   *list.List               // front: most recently used
	bytes int64
}

type cacheEntry struct {
	key     string
	status  int
	proto   string
	header  http.Header
	body    []byte
	fetched time.Time
}

func newResponseCache(next http.RoundTripper, ttl time.Duration, maxEntries int, maxBytes int64) *responseCache {
	return &responseCache{
		next: next, ttl: cmpOr(ttl, DefaultCacheTTL),
		maxEntries: cmpOr(maxEntries, DefaultCacheMaxEntries), maxBytes: cmpOr(maxBytes, DefaultCacheMaxBytes),
		now: time.Now, byKey: map[string]*list.Element{}, lru: list.New(),
	}
}

// cacheNote is how a call learns that its response came from the cache:
// the handler puts one in the call's context, the cache fills it.
type cacheNote struct {
	mu      sync.Mutex
	hit     bool
	fetched time.Time
}

type cacheNoteKey struct{}

func withCacheNote(ctx context.Context) (context.Context, *cacheNote) {
	n := &cacheNote{}
	return context.WithValue(ctx, cacheNoteKey{}, n), n
}

func (n *cacheNote) get() (bool, time.Time) {
	if n == nil {
		return false, time.Time{}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hit, n.fetched
}

func cacheKey(req *http.Request) string {
	var b strings.Builder
	b.WriteString(req.URL.String())
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range req.Header[k] {
			b.WriteString("\n" + k + ": " + v)
		}
	}
	return b.String()
}

func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func (c *responseCache) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || loopbackName(req.URL.Hostname()) || req.Header.Get("Range") != "" {
		return c.next.RoundTrip(req)
	}
	key := cacheKey(req)
	if e, ok := c.lookup(key); ok {
		if n, _ := req.Context().Value(cacheNoteKey{}).(*cacheNote); n != nil {
			n.mu.Lock()
			n.hit, n.fetched = true, e.fetched
			n.mu.Unlock()
		}
		return &http.Response{
			Status: http.StatusText(e.status), StatusCode: e.status, Proto: e.proto, ProtoMajor: 1, ProtoMinor: 1,
			Header: e.header.Clone(), Body: io.NopCloser(bytes.NewReader(e.body)),
			ContentLength: int64(len(e.body)), Request: req,
		}, nil
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil || !cacheable(resp) {
		return resp, err
	}
	resp.Body = &recordingBody{rc: resp.Body, c: c, limit: c.maxBytes / 4,
		entry: &cacheEntry{key: key, status: resp.StatusCode, proto: resp.Proto, header: resp.Header.Clone()}}
	return resp, nil
}

// recordingBody passes a response body through to its reader (the Fetch
// tool, which reads at most its call's max_bytes plus one) and keeps a copy
// of what it read. The entry is stored only when the reader reached the end
// of the body: a body the call's cap cut, one that failed or timed out
// mid-way, or one longer than a quarter of the cache (the limit) is never
// stored. So the cache reads nothing the call would not have read, a slow
// endless body ends as the call's truncated page, and an entry is always a
// whole body: a later call with a larger max_bytes never gets a cut one,
// and one with a smaller max_bytes cuts the whole body as the network
// would.
type recordingBody struct {
	rc    io.ReadCloser
	c     *responseCache
	limit int64
	entry *cacheEntry // nil once stored or abandoned
	buf   []byte
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.entry == nil {
		return n, err
	}
	if int64(len(b.buf)+n) > b.limit {
		b.entry, b.buf = nil, nil // too long to keep: pass through
		return n, err
	}
	b.buf = append(b.buf, p[:n]...)
	switch {
	case err == io.EOF:
		b.entry.body, b.entry.fetched = b.buf, b.c.now()
		b.c.store(b.entry)
		b.entry, b.buf = nil, nil
	case err != nil:
		b.entry, b.buf = nil, nil
	}
	return n, err
}

func (b *recordingBody) Close() error {
	b.entry, b.buf = nil, nil
	return b.rc.Close()
}

// cacheable: no 5xx or 206, and no Cache-Control no-store or private.
func cacheable(resp *http.Response) bool {
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusPartialContent {
		return false
	}
	for _, v := range resp.Header.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(d), "=")
			if strings.EqualFold(name, "no-store") || strings.EqualFold(name, "private") {
				return false
			}
		}
	}
	return true
}

func (c *responseCache) lookup(key string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if c.now().Sub(e.fetched) >= c.ttl {
		c.remove(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e, true
}

func (c *responseCache) store(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; ok {
		c.remove(el)
	}
	c.byKey[e.key] = c.lru.PushFront(e)
	c.bytes += int64(len(e.body))
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *responseCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.byKey, e.key)
	c.bytes -= int64(len(e.body))
}
