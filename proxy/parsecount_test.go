package proxy

import (
	"testing"

	"github.com/ocfetch/ocfetch/capability"
)

// TestParseNormalisesOnce: a request target's host is normalised once by
// its parse (capability.ParseTarget); the target it yields is normalised
// by construction and not normalised again. Not parallel: the count is
// process-wide.
func TestParseNormalisesOnce(t *testing.T) {
	for _, tc := range []struct {
		authority string
		want      string // "" when refused
	}{
		{"Example.COM.:443", "example.com:443"},
		{"[0:0::1]:8080", "[::1]:8080"},
		{"bücher.example:443", "xn--bcher-kva.example:443"},
		{"example.com..:443", ""},
		{"127.1:80", ""},
	} {
		t.Run(tc.authority, func(t *testing.T) {
			count, stop := capability.CountNormalizations()
			defer stop()
			p, rerr := parseConnect(tc.authority)
			if got := p.target.String(); (rerr == nil) != (tc.want != "") || (rerr == nil && got != tc.want) {
				t.Errorf("parseConnect(%q) = %s, %v; want %q", tc.authority, got, rerr, tc.want)
			}
			if n := count(); n != 1 {
				t.Errorf("NormalizeHost ran %d times; want 1", n)
			}
		})
	}
}
