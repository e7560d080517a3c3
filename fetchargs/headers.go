package fetchargs

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/safetext"
	"golang.org/x/net/http/httpguts"
)

// Bounds on the request headers a call may send.
const (
	// MaxHeaders is the most request headers one call may set.
	MaxHeaders = 32
	// MaxHeaderValueBytes bounds one header value.
	MaxHeaderValueBytes = 8 << 10
	// MaxHeaderBytes bounds the sum of the names and values of all headers.
	MaxHeaderBytes = 32 << 10
)

// refusedHeaders are request headers a call may not set, with why. The
// client owns framing and routing: Host would let a call address a
// different virtual host than the approved one; the hop-by-hop headers
// (RFC 9110 §7.6.1) and Content-Length are framing the transport writes;
// Proxy-* would speak to a proxy that does not exist; Accept-Encoding is
// left to the transport so that it decompresses, and the body cap counts
// decompressed bytes; Expect would stall a POST on a 100-continue
// handshake. Any name starting with "Proxy-" is refused as well.
//
// Authorization and Cookie are allowed: they go only to the approved host
// and port (redirects never leave it), are never logged, and a call that
// needs them says so in its arguments. They are not kept across calls.
var refusedHeaders = map[string]string{
	"Host":              "the host is the URL's",
	"Connection":        "a hop-by-hop header",
	"Keep-Alive":        "a hop-by-hop header",
	"Te":                "a hop-by-hop header",
	"Trailer":           "a hop-by-hop header",
	"Transfer-Encoding": "a hop-by-hop header",
	"Upgrade":           "a hop-by-hop header",
	"Content-Length":    "set by the client from the body",
	"Accept-Encoding":   "set by the client so that it can decompress within the body cap",
	"Expect":            "not supported",
}

// ValidateHeaders checks the request headers of the headers argument and
// returns them in canonical form. A refusal ([Invalid]) names the header's
// NAME (sanitized), never its value.
func ValidateHeaders(hs []Header) (http.Header, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	if len(hs) > MaxHeaders {
		return nil, Invalid("more than " + strconv.Itoa(MaxHeaders) + " headers")
	}
	h := make(http.Header, len(hs))
	total := 0
	for _, kv := range hs {
		if !httpguts.ValidHeaderFieldName(kv.Name) {
			return nil, Invalid("header name " + strconv.Quote(safetext.Short(kv.Name)) + " is not a valid HTTP token")
		}
		canon := http.CanonicalHeaderKey(kv.Name)
		if why, ok := refusedHeaders[canon]; ok {
			return nil, Invalid("header " + canon + " may not be set (" + why + ")")
		}
		if strings.HasPrefix(canon, "Proxy-") {
			return nil, Invalid("header " + canon + " may not be set (there is no proxy)")
		}
		if len(kv.Value) > MaxHeaderValueBytes {
			return nil, Invalid("header " + canon + " has a value longer than 8 KiB")
		}
		if !httpguts.ValidHeaderFieldValue(kv.Value) {
			return nil, Invalid("header " + canon + " has a value with a control character (CR, LF, NUL, …)")
		}
		total += len(kv.Name) + len(kv.Value)
		if total > MaxHeaderBytes {
			return nil, Invalid("headers are larger than 32 KiB in total")
		}
		h[canon] = []string{kv.Value}
	}
	return h, nil
}
