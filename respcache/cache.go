package respcache

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	DefaultTTL        = 15 * time.Minute
	DefaultMaxEntries = 256
	DefaultMaxBytes   = 64 << 20
)

// Options bound a [Cache]. The zero value is usable: every bound
// takes its default, as does a negative one.
type Options struct {
	// TTL is how long a response is kept; 0 or less means DefaultTTL.
	TTL time.Duration
	// MaxEntries and MaxBytes bound the cache (least recently used out
	// first); 0 or less means DefaultMaxEntries and DefaultMaxBytes.
	MaxEntries int
	MaxBytes   int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Cache is an in-memory response cache for the Fetch tool, shared by the
// Fetches whose fetch.Options.Cache names it (the MCP server: one for the
// process), so that paging through a long page (windows of max_length)
// reads one response, not one per window. It is an option of the Fetch's
// transport: a run wraps its client's RoundTripper in it ([Cache.Transport]),
// so the guarded transport below is unchanged and the front end only
// configures it.
//
// It keeps GET responses only, keyed by a hash of the whole URL and the
// request headers (none of their values is kept), for its TTL, bounded in
// entries and bytes; it keeps only a status a cache may reuse without
// explicit freshness (RFC 9110 15.1: 200, 203, 204, 300, 301, 308, 404, 405,
// 410, 414; never a 5xx, a partial response, a 429 or a temporary redirect);
// it never keeps a response marked Cache-Control no-store or private or
// varying on "*", a request with a Range header, a request that asks for a
// fresh answer (Cache-Control no-cache, no-store or max-age=0, Pragma
// no-cache: it is not answered from the cache either), a body its reader did
// not read to the end (see [recordingBody]: the call's max_bytes is obeyed),
// or anything of local mode (a dev server changes). Every call is still
// decided and audited by the broker; a hit only saves the network request,
// and the result says so (fetch.Output.Cached, fetch.Output.FetchedAt, from
// the run's [Hit]). A Cache is safe for concurrent use.
type Cache struct {
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

// New returns an empty cache bounded by opts (nil: the defaults).
func New(opts *Options) *Cache {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Cache{
		ttl: orDefault(o.TTL, DefaultTTL), maxEntries: orDefault(o.MaxEntries, DefaultMaxEntries),
		maxBytes: orDefault(o.MaxBytes, DefaultMaxBytes), now: o.Now,
		byKey: map[string]*list.Element{}, lru: list.New(),
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// orDefault is v, or def when v is 0 or less: a negative MaxEntries would
// have store evict past an empty list.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Hit is how a run learns that its final response came from the cache,
// and when that response was fetched. The zero value: not from the cache.
type Hit struct {
	// Hit reports that the final response came from the cache.
	Hit bool
	// Fetched is when a cached response was fetched from the network.
	Fetched time.Time
}

// cachingTransport is one run's view of the cache: next is the run's
// client's transport (the guarded one), hit the run's record. The client
// calls RoundTrip in the run's goroutine, hop by hop, so hit needs no lock.
type cachingTransport struct {
	c    *Cache
	next http.RoundTripper
	hit  *Hit
}

// Transport returns next behind c for one run, recording into hit whether
// the run's final response came from c. A nil next is
// http.DefaultTransport, as for an http.Client. The returned RoundTripper
// belongs to one run: its client calls it hop by hop in one goroutine.
func (c *Cache) Transport(next http.RoundTripper, hit *Hit) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport // what http.Client uses for a nil Transport
	}
	return &cachingTransport{c: c, next: next, hit: hit}
}

// cacheKey is the SHA-256 of the request's whole URL and every header
// name and value, each length-prefixed so that no two requests write the
// same bytes. A request differing in any of them has another key, yet the
// key holds none of them: no credential (Authorization, Cookie, a token in
// the query) is kept past its call, and a key is 32 bytes whatever the
// request's size.
func cacheKey(req *http.Request) string {
	h := sha256.New()
	var n [8]byte
	write := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	write(req.URL.String())
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		write(k)
		binary.BigEndian.PutUint64(n[:], uint64(len(req.Header[k])))
		h.Write(n[:])
		for _, v := range req.Header[k] {
			write(v)
		}
	}
	return string(h.Sum(nil))
}

func (t *cachingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.c
	*t.hit = Hit{} // the final hop's response decides
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" || wantsFresh(req.Header) {
		return t.next.RoundTrip(req)
	}
	key := cacheKey(req)
	if e, ok := c.lookup(key); ok {
		*t.hit = Hit{Hit: true, Fetched: e.fetched}
		return &http.Response{
			Status: http.StatusText(e.status), StatusCode: e.status, Proto: e.proto, ProtoMajor: 1, ProtoMinor: 1,
			Header: e.header.Clone(), Body: io.NopCloser(bytes.NewReader(e.body)),
			ContentLength: int64(len(e.body)), Request: req,
		}, nil
	}
	resp, err := t.next.RoundTrip(req)
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
	c     *Cache
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

// cacheable: a status a cache may reuse without explicit freshness
// ([reusableStatus]), no Cache-Control no-store or private, and no
// "Vary: *". The key holds every request header, so a Vary naming headers
// is honoured; "*" says the answer depends on more than the request
// (RFC 9111 4.1: it never matches a later request).
func cacheable(resp *http.Response) bool {
	if !reusableStatus(resp.StatusCode) {
		return false
	}
	if hasDirective(resp.Header, "Vary", func(name, _ string) bool { return name == "*" }) {
		return false
	}
	return !hasDirective(resp.Header, "Cache-Control", func(name, _ string) bool {
		return strings.EqualFold(name, "no-store") || strings.EqualFold(name, "private")
	})
}

// reusableStatus: the statuses RFC 9110 (15.1) calls heuristically
// cacheable, less 206 (a part) and 501 (a server error). The TTL is the
// cache's own, not the response's freshness, so any other status — a 429
// asking to retry later, a 302 or 307 to a login page, a 401 or 403 of a
// bot wall, a 408 — is asked again on the next call rather than repeated
// for the TTL.
func reusableStatus(code int) bool {
	switch code {
	case http.StatusOK, http.StatusNonAuthoritativeInfo, http.StatusNoContent,
		http.StatusMultipleChoices, http.StatusMovedPermanently, http.StatusPermanentRedirect,
		http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusGone, http.StatusRequestURITooLong:
		return true
	}
	return false
}

// wantsFresh reports whether a request's caller asked for an answer from
// the origin (RFC 9111 5.2.1: Cache-Control no-cache, no-store or
// max-age=0; Pragma no-cache): such a request is neither answered from
// the cache nor kept, however often it is repeated.
func wantsFresh(h http.Header) bool {
	return hasDirective(h, "Cache-Control", func(name, arg string) bool {
		return strings.EqualFold(name, "no-cache") || strings.EqualFold(name, "no-store") ||
			strings.EqualFold(name, "max-age") && strings.Trim(strings.TrimSpace(arg), `"`) == "0"
	}) || hasDirective(h, "Pragma", func(name, _ string) bool { return strings.EqualFold(name, "no-cache") })
}

// hasDirective reports whether a directive of h's field (a comma-separated
// list of name[=arg]) satisfies is.
func hasDirective(h http.Header, field string, is func(name, arg string) bool) bool {
	for _, v := range h.Values(field) {
		for d := range strings.SplitSeq(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			if is(strings.TrimSpace(name), arg) {
				return true
			}
		}
	}
	return false
}

func (c *Cache) lookup(key string) (*cacheEntry, bool) {
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

func (c *Cache) store(e *cacheEntry) {
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

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.byKey, e.key)
	c.bytes -= int64(len(e.body))
}
