package egress

import (
	"errors"
	"net/url"
	"strings"
)

// IsResponseHeadTooLarge reports whether err (from a request through a
// guarded client or transport) is the transport refusing a response head
// over its MaxResponseHeaderBytes: HTTP/1's "server response headers
// exceeded N bytes" and HTTP/2's header list limit. net/http has no type
// for it, so the text is tested, without the *url.Error wrapper (which
// may carry the URL); it is never shown.
func IsResponseHeadTooLarge(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		s = ue.Err.Error()
	}
	return strings.Contains(s, "server response headers exceeded") ||
		strings.Contains(s, "header list larger than") ||
		strings.Contains(s, "response header list larger")
}
