package localfetch

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// ResponseHeaders are the response headers a local fetch reports back, in
// lowercase: what a delivery check needs and nothing else. It is an
// allowlist, never a denylist: a header not listed cannot leak.
var ResponseHeaders = [...]string{"content-type", "content-length", "location", "last-modified", "etag", "server"}

// MaxHeaderValueBytes bounds each value [BoundedResponseHeaders] returns.
const MaxHeaderValueBytes = 512

// BoundedResponseHeaders returns the [ResponseHeaders] subset of h with
// lowercase keys; absent headers are omitted. Repeated values of one header
// are joined with ", " (the canonical key's values first). Each result
// is valid UTF-8 with control characters replaced by spaces, and at most
// [MaxHeaderValueBytes] bytes ("…" marks a cut), so a hostile server cannot
// flood the summary however many or long its headers are. Keys of h are
// matched case-insensitively, so a hand-built header with "ETag" is found
// as well as net/http's canonical "Etag".
func BoundedResponseHeaders(h http.Header) map[string]string {
	out := make(map[string]string)
	for _, name := range ResponseHeaders {
		var b strings.Builder
		found := false
		// Canonical key first (what net/http produces), then any
		// non-canonical spelling a caller may have set directly.
		canon := http.CanonicalHeaderKey(name)
		appendValues(&b, h[canon], &found)
		for k, vv := range h {
			if k != canon && strings.EqualFold(k, name) {
				appendValues(&b, vv, &found)
			}
		}
		if found {
			out[name] = bound(b.String())
		}
	}
	return out
}

// appendValues joins vv onto b with ", ", stopping once b holds more than
// the bound (the rest would be cut anyway).
func appendValues(b *strings.Builder, vv []string, found *bool) {
	for _, v := range vv {
		if b.Len() > MaxHeaderValueBytes {
			*found = true
			return
		}
		if *found {
			b.WriteString(", ")
		}
		*found = true
		if len(v) > MaxHeaderValueBytes+1 {
			v = v[:MaxHeaderValueBytes+1] // cut later, on a rune boundary
		}
		b.WriteString(v)
	}
}

// bound makes s valid UTF-8 without control characters and cuts it to
// MaxHeaderValueBytes on a rune boundary.
func bound(s string) string {
	const mark = "…"
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= MaxHeaderValueBytes {
		return s
	}
	cut := MaxHeaderValueBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
