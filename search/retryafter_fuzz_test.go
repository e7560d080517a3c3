package search

import (
	"testing"
	"time"
)

// FuzzRetryAfter: a backend's Retry-After header. A delay taken is 0 to a
// day, in whole seconds, and a number of seconds is read as itself.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{
		"120", " 5 ", "0", "-1", "86400", "86401", "9223372036854775807", "1e3", "+5",
		"Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "", "soon",
	} {
		f.Add(s, int64(1445412480))
	}
	f.Fuzz(func(t *testing.T, v string, unix int64) {
		now := time.Unix(unix, 0)
		d, ok := retryAfter(v, now)
		if !ok {
			if d != 0 {
				t.Fatalf("retryAfter(%q) = %v, false", v, d)
			}
			return
		}
		if d < 0 || d > 24*time.Hour || d%time.Second != 0 {
			t.Fatalf("retryAfter(%q, %v) = %v", v, now, d)
		}
	})
}
