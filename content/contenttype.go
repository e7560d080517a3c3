package content

import (
	"mime"
	"strings"
)

// parseContentType returns the media type of a Content-Type value (lower
// case, without parameters) and its charset parameter (trimmed, "" when
// absent), exactly as mime.ParseMediaType reads them; ok is false where
// mime.ParseMediaType fails. The usual shapes ("text/html",
// "text/html; charset=utf-8") are read in place, allocating nothing; any
// other value goes to mime.ParseMediaType (FuzzParseContentType holds the
// fast path to its answer).
func parseContentType(v string) (mt, charset string, ok bool) {
	if mt, charset, ok := plainContentType(v); ok {
		return mt, charset, true
	}
	mt, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", "", false
	}
	return mt, strings.TrimSpace(params["charset"]), true
}

// plainContentType is parseContentType's fast path: an ASCII value,
// lower-case "type/subtype" (white space around it allowed), then nothing
// or one unquoted charset parameter with no white space around its '='.
// It reports ok=false for anything else, which it leaves to
// mime.ParseMediaType.
func plainContentType(v string) (mt, charset string, ok bool) {
	base, rest, hasParam := strings.Cut(v, ";")
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 0x80 || i < len(base) && 'A' <= c && c <= 'Z' {
			return "", "", false // non-ASCII white space, or a type to lower-case
		}
	}
	mt = strings.TrimSpace(base)
	typ, sub, slash := strings.Cut(mt, "/")
	if !slash || !isToken(typ) || !isToken(sub) {
		return "", "", false
	}
	if !hasParam {
		return mt, "", true
	}
	rest = strings.TrimLeft(rest, " \t")
	if len(rest) < len("charset=") || !strings.EqualFold(rest[:len("charset=")], "charset=") {
		return "", "", false
	}
	value := strings.TrimRight(rest[len("charset="):], " \t")
	if !isToken(value) {
		return "", "", false
	}
	return mt, value, true
}

// isToken reports whether s is a non-empty RFC 2045 token: printable
// ASCII but space and the tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}
