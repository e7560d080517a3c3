package localfetch

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/safetext"
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
// is valid UTF-8 with a tab turned into a space and every other character
// unsafe to show replaced by U+FFFD (see bound), and at most
// [MaxHeaderValueBytes] bytes ("…" marks a cut), so a hostile server cannot
// flood the summary however many or long its headers are. Keys of h are
// matched case-insensitively, so a hand-built header with "ETag" is found
// as well as net/http's canonical "Etag".
//
// h is an http.Header or any map of the same shape: the package does not
// import net/http, so that the policy core that imports it stays pure.
func BoundedResponseHeaders(h map[string][]string) map[string]string {
	out := make(map[string]string, len(ResponseHeaders))
	// Other spellings than net/http's canonical key, found in one pass
	// over h (a hand-built header); their values follow the canonical ones.
	var extra [len(ResponseHeaders)][]string
	for k, vv := range h {
		if isCanonicalResponseHeader(k) {
			continue
		}
		for i, name := range ResponseHeaders {
			if strings.EqualFold(k, name) {
				extra[i] = append(extra[i], vv...)
			}
		}
	}
	for i, name := range ResponseHeaders {
		vals, found := h[canonicalResponseHeaders[i]]
		if extra[i] != nil {
			vals, found = append(slices.Clip(vals), extra[i]...), true
		}
		if found {
			out[name] = bound(join(vals))
		}
	}
	return out
}

// canonicalResponseHeaders are [ResponseHeaders] as
// textproto.CanonicalMIMEHeaderKey writes them (a test checks), spelled
// out so that no call canonicalises them again.
var canonicalResponseHeaders = [len(ResponseHeaders)]string{"Content-Type", "Content-Length", "Location", "Last-Modified", "Etag", "Server"}

func isCanonicalResponseHeader(k string) bool {
	for _, c := range canonicalResponseHeaders {
		if k == c {
			return true
		}
	}
	return false
}

// join joins vals with ", ", stopping once the result is longer than the
// bound (the rest would be cut anyway), so a flood of values costs no more
// than one bounded string.
func join(vals []string) string {
	if len(vals) == 1 {
		return vals[0][:min(len(vals[0]), MaxHeaderValueBytes+1)]
	}
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

// bound makes s safe to show wherever the summary goes (get --json, MCP
// content and structured content, the text rendering): a tab, which HTTP
// reads as a space, becomes one; every other character [safetext.Line]
// judges unsafe — C0 and C1 controls, DEL, bidirectional overrides,
// isolates and marks, invalid UTF-8 — is replaced by U+FFFD, visibly, by
// that one function. Then s is cut to MaxHeaderValueBytes on a rune
// boundary.
func bound(s string) string {
	const mark = "…"
	if len(s) <= MaxHeaderValueBytes && printableASCII(s) {
		return s // the usual value: nothing to replace or cut
	}
	s = safetext.Line(strings.ReplaceAll(s, "\t", " "))
	if len(s) <= MaxHeaderValueBytes {
		return s
	}
	cut := MaxHeaderValueBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
