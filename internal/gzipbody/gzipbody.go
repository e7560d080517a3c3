// Package gzipbody holds the one rule for a response body that Go's
// transport left gzip-encoded, shared by the fetch tool's body reader and
// the download tap of `ocfetch get -o`.
package gzipbody

import (
	"net/http"
	"strings"
)

// LeftEncoded reports whether resp's body is gzip that the transport did
// not decode. Go's transport asks for gzip, and decodes it
// (resp.Uncompressed), only when the request set neither Range nor
// Accept-Encoding; any other gzip body arrives encoded and must be
// decoded by its reader, so that what is counted and kept is the
// decompressed body.
func LeftEncoded(resp *http.Response) bool {
	return !resp.Uncompressed && strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "gzip")
}
