package search

import (
	"net/url"
	"strings"
	"testing"
)

// urlParseWebURL is webURL as it was written before plainWebURL: the
// checks before the parse, then url.Parse's verdict. webURL must agree
// with it on every input.
func urlParseWebURL(s string) bool {
	if s == "" || len(s) > maxURLBytes || strings.IndexByte(s, ' ') >= 0 || strings.IndexByte(s, '\t') >= 0 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

func TestPlainWebURLAgreesWithURLParse(t *testing.T) {
	tests := []struct {
		s     string
		want  bool // webURL's verdict, url.Parse's
		plain bool // answered without url.Parse
	}{
		// The common shapes, answered by plainWebURL.
		{"https://r0.example/a/page", true, true},
		{"http://b.example/", true, true},
		{"https://c.example", true, true},
		{"https://en.wikipedia.org/wiki/Caf%C3%A9?x=1&y=%20#S%C3%A9", true, true},
		{"https://a.example:8443/x", true, true},
		{"https://a.example:/x", true, true}, // an empty port parses
		{"https://a.example?q", true, true},
		{"https://a.example#f", true, true},
		{"https://xn--caf-dma.example/ü", true, true}, // a raw non-ASCII path parses
		{"https://a_b~c.example/", true, true},
		// Left to url.Parse: it accepts them.
		{"HTTPS://a.example/", true, false},
		{"https://[::1]:443/", true, false},
		{"https://caf%C3%A9.example/", true, false},
		{"https://:443/", true, false},
		{"https://a.example/?q=%zz", true, false}, // a query is not unescaped
		{"https://a.example/#\x01", true, false},  // nor checked for control bytes after '#'
		{"https://a!b.example/", true, false},
		{"https://a<b.example/", true, false}, // url.Parse takes '<' in a host
		// Left to url.Parse: it refuses them, or they are not web URLs.
		{"https://u:p@b.example/", false, false},
		{"https://@b.example/", false, false},
		{"https://a.example:80:80/", false, false},
		{"https://a.example:x/", false, false},
		{"https://a.example/%zz", false, false},
		{"https://a.example/%4", false, false},
		{"https://a.example/#%", false, false},
		{"https://a.example/\x7f", false, false},
		{"https://a.example/\x00", false, false},
		{"https://[1.2.3.4]/", false, false},
		{"https://%41.example/", false, false},
		{"https:///path", false, false},
		{"https://", false, false},
		{"https:", false, false},
		{"ftp://a.example/", false, false},
		{"javascript:alert(1)", false, false},
		{"//a.example/", false, false},
		{"/a/page", false, false},
		{"", false, false},
		{"https://a.example/ x", false, false},
		{"https://a.example/\tx", false, false},
		{"https://a.example/" + strings.Repeat("a", maxURLBytes), false, true},
	}
	for _, tc := range tests {
		if ref := urlParseWebURL(tc.s); ref != tc.want {
			t.Errorf("url.Parse's verdict on %q is %v; the table says %v", tc.s, ref, tc.want)
		}
		if got := webURL(tc.s); got != tc.want {
			t.Errorf("webURL(%q) = %v; want %v", tc.s, got, tc.want)
		}
		if got := plainWebURL(tc.s); got != tc.plain {
			t.Errorf("plainWebURL(%q) = %v; want %v", tc.s, got, tc.plain)
		}
	}
}

// FuzzWebURL holds webURL to url.Parse's verdict on every input, and
// plainWebURL to saying true only where url.Parse does.
func FuzzWebURL(f *testing.F) {
	for _, seed := range []string{
		"https://r0.example/a/page", "http://b.example:80/x?y#z", "https://a.example/%C3%A9", // plain
		"HTTP://a.example/", "https://[::1]/", "https://u@a.example/", "https://a.example:1:2/", // url.Parse's
		"https://a.example/%", "https://a.example/#%zz", "https://a.example\x7f/", "https://a.example/?%", // edges of an escape
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := urlParseWebURL(s)
		if got := webURL(s); got != want {
			t.Fatalf("webURL(%q) = %v; url.Parse says %v", s, got, want)
		}
		if plainWebURL(s) && !parsedWebURL(s) {
			t.Fatalf("plainWebURL(%q) is true; url.Parse refuses it", s)
		}
	})
}
