package content

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// FuzzFixURLs: a link or an image source a hostile page writes, and the
// URL it was fetched from. A link that is kept never has a script or
// data: scheme as a browser reads it, an image source is never data:, a
// link made absolute is at most maxLinkLen bytes (else it is left as
// written), and the links grow by no more than their budget.
func FuzzFixURLs(f *testing.F) {
	for _, s := range [][2]string{
		{"https://site.example/a/b?q=1", "../c"},
		{"https://site.example/", "java\tscript:alert(1)"},
		{"https://site.example/", " \x01JAVASCRIPT:x"},
		{"https://site.example/", "vbscript:x"},
		{"https://site.example/", "data:text/html,x"},
		{"https://site.example/" + strings.Repeat("p/", 1100), "/root"},
		{"https://site.example/" + strings.Repeat("p/", 1100), "rel"},
		{"https://site.example/", "#frag"},
		{"https://site.example/", "%zz"},
		{"http://u:p@site.example:8080/x", "//other.example/y"},
		{"", "relative"},
	} {
		f.Add(s[0], s[1], 4096, true)
	}
	f.Fuzz(func(t *testing.T, base, ref string, grow int, img bool) {
		var u *url.URL
		if base != "" {
			var err error
			if u, err = url.Parse(base); err != nil {
				return
			}
		}
		grow = max(0, min(grow, 1<<20))
		lb := newLinkBase(u, grow)
		n := &html.Node{Type: html.ElementNode, DataAtom: atom.A, Data: "a", Attr: []html.Attribute{{Key: "href", Val: ref}}}
		key := "href"
		if img {
			n.DataAtom, n.Data, key = atom.Img, "img", "src"
			n.Attr = []html.Attribute{{Key: "src", Val: ref}, {Key: "srcset", Val: ref}}
		}
		long := fixURLs(n, &lb)
		var got string
		kept := false
		for _, a := range n.Attr {
			if a.Key == "srcset" || a.Key == "sizes" {
				t.Fatalf("fixURLs kept %s", a.Key)
			}
			if a.Key == key {
				got, kept = a.Val, true
			}
		}
		if !kept {
			return
		}
		seen := browserURL(got)
		if hasSchemePrefix(seen, "data:") || !img && (hasSchemePrefix(seen, "javascript:") || hasSchemePrefix(seen, "vbscript:")) {
			t.Fatalf("fixURLs(%q against %q) kept %q", ref, base, got)
		}
		if long == 0 && got != browserURL(ref) && len(got) > maxLinkLen {
			t.Fatalf("fixURLs(%q against %q): a %d-byte link", ref, base, len(got))
		}
		if d := len(got) - len(browserURL(ref)); d > grow {
			t.Fatalf("fixURLs(%q against %q): grew by %d with a budget of %d", ref, base, d, grow)
		}
	})
}
