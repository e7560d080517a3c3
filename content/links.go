package content

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Link resolution: links and image sources made absolute against the
// page's base, with the growth of the output bounded.

// maxLinkLen bounds a link or image source made absolute: one whose
// absolute form would be longer (a long <base href> or final URL repeated
// into every relative link) is left as written, with a note. A <base href>
// longer than this is ignored, with a note.
const maxLinkLen = 2048

// fixURLs drops script and data: links and data: images from n (their
// scheme read as a browser reads it: browserURL) and makes its link or
// image source absolute; it returns how many were left as written
// because they would be too long.
func fixURLs(n *html.Node, base *linkBase) (long int) {
	switch n.DataAtom {
	case atom.A, atom.Area:
		for i := range n.Attr {
			if n.Attr[i].Key != "href" || n.Attr[i].Namespace != "" {
				continue
			}
			href := browserURL(n.Attr[i].Val)
			if hasSchemePrefix(href, "javascript:") || hasSchemePrefix(href, "vbscript:") || hasSchemePrefix(href, "data:") {
				n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
				return 0
			}
			v, ok := base.resolve(href)
			n.Attr[i].Val = v
			if !ok {
				return 1
			}
			return 0
		}
	case atom.Img:
		kept := n.Attr[:0]
		for _, a := range n.Attr {
			switch a.Key {
			case "srcset", "sizes":
				continue
			case "src":
				src := browserURL(a.Val)
				if hasSchemePrefix(src, "data:") {
					continue // inline image bytes are never content
				}
				v, ok := base.resolve(src)
				a.Val = v
				if !ok {
					long++
				}
			}
			kept = append(kept, a)
		}
		n.Attr = kept
	}
	return long
}

// linkBase makes links absolute against a base URL without letting a
// long base be copied into every link: the cost of each link is bounded
// by maxLinkLen plus its own length, not by the base's.
type linkBase struct {
	u     *url.URL // nil: links stay as written
	n     int      // len(u.String())
	root  *url.URL // u's scheme, user and host only; nil if too long
	rootN int
	// grow is what the page's links may still grow by in all; once it is
	// spent, links stay as written.
	grow int
}

func newLinkBase(u *url.URL, grow int) linkBase {
	if u == nil {
		return linkBase{}
	}
	b := linkBase{u: u, n: len(u.String()), grow: grow}
	root := &url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host}
	if n := len(root.String()); n <= maxLinkLen {
		b.root, b.rootN = root, n
	}
	return b
}

// resolve returns ref made absolute, or ref itself and false when the
// absolute form would be longer than maxLinkLen or the page's links have
// grown by their whole budget. Fragment-only and
// unparsable references are returned as written (and true).
func (b *linkBase) resolve(ref string) (string, bool) {
	if b.u == nil || ref == "" || ref[0] == '#' {
		return ref, true
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref, true
	}
	base := b.u
	if b.n+len(ref) > maxLinkLen {
		// Only a reference that replaces the base's path (an absolute URL,
		// "//host/…" or "/path") can be short; resolve it against the
		// base's root, which gives the same result without the long path.
		if b.root == nil || !(u.IsAbs() || strings.HasPrefix(ref, "/")) {
			return ref, false
		}
		base = b.root
	}
	if b.grow <= 0 {
		return ref, false
	}
	s := base.ResolveReference(u).String()
	if len(s) > len(ref) {
		if len(s) > maxLinkLen {
			return ref, false
		}
		b.grow -= len(s) - len(ref)
	}
	return s, true
}

// browserURL is s as a browser reads a URL: without the C0 controls and
// spaces at either end, and without any tab or line break (the URL
// standard removes them before parsing). Checking the scheme of anything
// else lets "java\tscript:" through, which a Markdown renderer (and the
// writer, which drops tabs and line breaks from link destinations) then
// reads as javascript:.
func browserURL(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

func hasSchemePrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
