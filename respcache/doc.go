// Package respcache is the Fetch tool's in-memory HTTP response cache: a
// RoundTripper option of a run's transport, so that paging through a long
// page (windows of max_length) reads one response, not one per window.
//
// The front end that wants one (the MCP server) makes one [Cache] for the
// process and names it in fetch.Options.Cache; each run of the Fetch wraps
// its client's transport in it with [Cache.Transport], in front of
// the guarded transport, which is unchanged:
//
//	c := respcache.New(&respcache.Options{TTL: 15 * time.Minute})
//	f := fetch.NewFetch(client, &fetch.Options{Cache: c})
//
// Contract: only GET responses are kept, keyed by a hash of the whole URL
// and the request headers (no credential is kept in a key), for the TTL and
// within bounds of entries and bytes (least recently used out first); only a
// status RFC 9110 lets a cache reuse without explicit freshness (200, 203,
// 204, 300, 301, 308, 404, 405, 410, 414: never a 5xx, a 206, a 429, a 302
// or 307); never a response marked no-store or private or "Vary: *", a
// request with a Range header, a request asking for a fresh answer
// (Cache-Control no-cache, no-store or max-age=0, Pragma no-cache: never
// answered from the cache either), or a body its reader did not read to the
// end (the call's max_bytes is obeyed: the cache reads nothing the call
// would not have read). Whether a response may be cached at all (never local
// mode) is the caller's choice: it wraps its transport or does not. A hit
// only saves the network request; the run learns of it through [Hit]. The
// package sends nothing itself and decides nothing about admission.
package respcache
