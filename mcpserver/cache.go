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
// private, a 5xx, a partial response, or anything of a loopback host (local
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
	// Keep at most a quarter of the cache in one entry; a longer body
	// passes through uncached.
	limit := c.maxBytes / 4
	head, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil || int64(len(head)) > limit {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	c.store(&cacheEntry{key: key, status: resp.StatusCode, proto: resp.Proto, header: resp.Header.Clone(), body: head, fetched: c.now()})
	resp.Body = io.NopCloser(bytes.NewReader(head))
	return resp, nil
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
