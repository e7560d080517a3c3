package search

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
)

// FuzzParseEndpoint: a backend URL from search.json or a flag. What is
// accepted is http or https with a normal host, no credentials, query or
// fragment, and is a fixed point (its String parses back to itself); a
// refusal wraps ErrConfig and quotes neither a password nor the path.
func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://searx.example.com", "https://searx.example.com/search", "http://127.0.0.1:8888/",
		"https://Bücher.example./a%2Fb", "https://user:hunter2secret@searx.example.com/",
		"https://searx.example.com/?q=1", "https://searx.example.com/#f", "ftp://x", "https:opaque",
		"https://[::1]:8443/p", "https://searx.example.com:080/", "//searx.example.com", "https://127.1/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := parseEndpoint(raw)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("parseEndpoint(%q): %v does not wrap ErrConfig", raw, err)
			}
			if p, perr := url.Parse(raw); perr == nil {
				if pw, ok := p.User.Password(); ok && len(pw) >= 6 && strings.Contains(err.Error(), pw) {
					t.Fatalf("parseEndpoint(%q): error %q quotes the password", raw, err)
				}
				if len(p.Path) >= 8 && strings.Contains(err.Error(), p.Path) {
					t.Fatalf("parseEndpoint(%q): error %q quotes the path", raw, err)
				}
			}
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
			t.Fatalf("parseEndpoint(%q) = %#v", raw, u)
		}
		if h, err := capability.NormalizeHost(u.Hostname()); err != nil || h != u.Hostname() {
			t.Fatalf("parseEndpoint(%q): host %q is not normal (%q, %v)", raw, u.Hostname(), h, err)
		}
		again, err := parseEndpoint(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("parseEndpoint(%q) = %q, which parses again as %v, %v", raw, u, again, err)
		}
	})
}
