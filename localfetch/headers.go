package localfetch

import (
	"net/textproto"
	"slices"
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
//
// h is an http.Header or any map of the same shape: the package does not
// import net/http, so that the policy core that imports it stays pure.
func BoundedResponseHeaders(h map[string][]string) map[string]string {
	out := make(map[string]string)
	for _, name := range ResponseHeaders {
		// The canonical key is what net/http produces; a hand-built header
		// may hold other spellings, whose values follow.
		canon := textproto.CanonicalMIMEHeaderKey(name)
		vals, found := h[canon]
		for k, vv := range h {
			if k != canon && strings.EqualFold(k, name) {
				vals, found = append(slices.Clip(vals), vv...), true
			}
		}
		if found {
			out[name] = bound(join(vals))
		}
	}
	return out
}

// join joins vals with ", ", stopping once the result is longer than the
// bound (the rest would be cut anyway), so a flood of values costs no more
// than one bounded string.
func join(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if b.Len() > MaxHeaderValueBytes {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v[:min(len(v), MaxHeaderValueBytes+1)]) // cut later, on a rune boundary
	}
	return b.String()
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
