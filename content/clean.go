package content

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Cleaning a parsed page before extraction or conversion: what is never
// content is removed, and what the page says about itself is recorded.

// removedTag lists elements whose content is never shown: code, styling,
// embedded documents and form controls. <title> is removed from the body
// (it is reported as Document.Title instead).
var removedTag = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Frame: true, atom.Frameset: true, atom.Object: true,
	atom.Embed: true, atom.Applet: true, atom.Svg: true, atom.Canvas: true,
	atom.Title: true, atom.Link: true, atom.Meta: true, atom.Base: true,
	atom.Input: true, atom.Select: true, atom.Textarea: true, atom.Button: true,
	atom.Dialog: true, atom.Audio: true, atom.Video: true, atom.Map: true,
	atom.Datalist: true, atom.Param: true, atom.Source: true, atom.Track: true,
}

// pageInfo is what prepare learns about a parsed page.
type pageInfo struct {
	title     string
	body      *html.Node // the <body>, or the document if there is none
	textRunes int        // non-space runes of visible text in the body
	elements  int        // elements left in the body
	maxDepth  int        // deepest element, counted from the body
	// longLinks counts links and image sources left as written because
	// their absolute form would be longer than maxLinkLen.
	longLinks   int
	baseIgnored bool // <base href> longer than maxLinkLen was ignored
	// codeClasses are the "language-x" classes prepare put on code blocks
	// (markCodeLanguage): extraction must keep them.
	codeClasses []string
	// tableRunes are the text runes of each table not inside another
	// (loneTable compares the article with them).
	tableRunes []int
	headings   int // h1–h3 elements in the body
}

// prepare cleans a parsed page in one walk, before extraction or
// conversion: it records the <title> and <base href>, removes comments,
// non-content elements (removedTag) and hidden elements from the body,
// drops javascript: links and data: images, and makes links and image
// sources absolute against the base (fragment-only links stay as they
// are: they point into the document being read). The <head> is left for
// readability's metadata but is never converted. A link whose absolute
// form would be longer than maxLinkLen stays as written (counted in
// longLinks), and so are all links once resolving has made them grow by
// grow bytes in all. When ctx is done the walk stops early; the caller
// checks ctx.Err().
func prepare(ctx context.Context, root *html.Node, baseURL *url.URL, grow int) pageInfo {
	var info pageInfo
	var head *html.Node
	for n := root.FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.ElementNode && n.DataAtom == atom.Html {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				switch c.DataAtom {
				case atom.Head:
					head = c
				case atom.Body:
					info.body = c
				}
			}
		}
	}
	base := baseURL
	if head != nil {
		for c := head.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Title:
				if info.title == "" {
					info.title = collapseSpace(textOf(c))
				}
			case atom.Base:
				if href, ok := attr(c, "href"); ok && len(href) > maxLinkLen {
					info.baseIgnored = true
				} else if ok {
					if u, err := url.Parse(strings.TrimSpace(href)); err == nil {
						if base != nil {
							base = base.ResolveReference(u)
						} else if u.IsAbs() {
							base = u
						}
					}
				}
			}
		}
	}
	if info.body == nil {
		info.body = root
	}
	links := newLinkBase(base, grow)

	// Iterative pre-order walk of the body; next is computed before a node
	// is removed, so removal never derails the walk.
	n := info.body.FirstChild
	depth := 1 // of n, below the body
	for nodes := 1; n != nil && n != info.body; nodes++ {
		if nodes%ctxCheckEvery == 0 && ctx.Err() != nil {
			break
		}
		descend := true
		switch n.Type {
		case html.CommentNode, html.DoctypeNode:
			descend = false
		case html.TextNode:
			info.textRunes += nonSpaceRunes(n.Data)
		case html.ElementNode:
			if removedTag[n.DataAtom] || n.Namespace == "svg" || isHidden(n) {
				if n.DataAtom == atom.Title && info.title == "" {
					info.title = collapseSpace(textOf(n))
				}
				descend = false
				break
			}
			info.elements++
			info.maxDepth = max(info.maxDepth, depth)
			info.longLinks += fixURLs(n, &links)
			if isHeading(n.DataAtom) {
				dropIDAndClass(n)
				switch n.DataAtom {
				case atom.H1, atom.H2, atom.H3:
					info.headings++
				}
			}
			if n.DataAtom == atom.Table && !hasAncestor(n, atom.Table) && len(info.tableRunes) < maxTables {
				info.tableRunes = append(info.tableRunes, textRunes(n))
			}
			if n.DataAtom == atom.Pre {
				if c := markCodeLanguage(n); c != "" && !slices.Contains(info.codeClasses, c) && len(info.codeClasses) < maxCodeClasses {
					info.codeClasses = append(info.codeClasses, c)
				}
			}
		}
		var next *html.Node
		next, depth = nextNodeDepth(n, info.body, descend, depth)
		if !descend && n.Type != html.TextNode {
			n.Parent.RemoveChild(n)
		}
		n = next
	}
	return info
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// dropIDAndClass removes a heading's id and class. Readability drops
// headings whose id or class looks like clutter, so the Go spec's
// <h3 id="Comments">Comments</h3> would vanish; neither renderer uses them.
func dropIDAndClass(n *html.Node) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != "id" && a.Key != "class" {
			kept = append(kept, a)
		}
	}
	n.Attr = kept
}

// nextNodeDepth is nextNode that also tracks the depth of the node returned.
func nextNodeDepth(n, root *html.Node, descend bool, depth int) (*html.Node, int) {
	if descend && n.FirstChild != nil {
		return n.FirstChild, depth + 1
	}
	for n != nil && n != root {
		if n.NextSibling != nil {
			return n.NextSibling, depth
		}
		n = n.Parent
		depth--
	}
	return nil, depth
}

// nextNode is the node after n in pre-order within root; descend says
// whether n's children are visited.
func nextNode(n, root *html.Node, descend bool) *html.Node {
	if descend && n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
	}
	return nil
}

// isHidden reports elements a browser would not show: the hidden
// attribute, aria-hidden="true", or an inline display:none.
func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "style":
			if containsFoldNoSpace(a.Val, "display:none") {
				return true
			}
		}
	}
	return false
}

// containsFoldNoSpace reports whether s, with spaces removed and ASCII
// folded to lower case, contains the lower-case needle.
func containsFoldNoSpace(s, needle string) bool {
	if len(s) < len(needle) {
		return false
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return bytes.Contains(b, []byte(needle))
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// textOf is the concatenated text under n.
func textOf(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.Type == html.TextNode && c.NextSibling == nil {
		return c.Data
	}
	var b strings.Builder
	for c := nextNode(n, n, true); c != nil; c = nextNode(c, n, true) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// textRunes counts non-space runes of the text under n.
func textRunes(n *html.Node) int {
	total := 0
	for c := nextNode(n, n, true); c != nil; c = nextNode(c, n, true) {
		if c.Type == html.TextNode {
			total += nonSpaceRunes(c.Data)
		}
	}
	return total
}

func nonSpaceRunes(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' {
				n++
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// collapseSpace trims s and turns each run of white space into one space.
// A string that is already so (ASCII, single spaces between words, none
// at either end: most titles) is returned as it is, not copied.
func collapseSpace(s string) string {
	if isCollapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isCollapsed reports whether s is ASCII with no white space but single
// spaces between other bytes: strings.Fields would give it back joined
// unchanged. Non-ASCII bytes answer false (unicode.IsSpace knows spaces
// beyond ASCII).
func isCollapsed(s string) bool {
	prevSpace := true // a leading space is not collapsed
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	return !prevSpace || s == ""
}

// maxTables bounds the tables whose text prepare counts.
const maxTables = 256

// maxCodeClasses bounds the languages kept through extraction (each is a
// class readability must check on every element it cleans).
const maxCodeClasses = 32

// markCodeLanguage records the language of the code block pre as the one
// class "language-x" on the <pre>, and returns that class ("" when no
// language is known). Readability strips classes, so the language must be
// named before extraction, in a class it is told to keep. The language
// comes from a "language-x" or "lang-x" class of the <pre> or of its
// <code>, else from the "highlight-x" class of a wrapper (Sphinx, Pygments:
// <div class="highlight-python3"><div class="highlight"><pre>), where
// "default" is Sphinx's Python lexer and "none" and "text" name none.
func markCodeLanguage(pre *html.Node) string {
	lang := codeLanguage(pre)
	if lang == "" {
		if c := findChild(pre, atom.Code); c != nil {
			lang = codeLanguage(c)
		}
	}
	for p, up := pre.Parent, 0; lang == "" && p != nil && up < 3; p, up = p.Parent, up+1 {
		class, _ := attr(p, "class")
		for f := range strings.FieldsSeq(class) {
			if l, ok := strings.CutPrefix(f, "highlight-"); ok && l != "" && !strings.ContainsAny(l, "`~") {
				switch l {
				case "default":
					lang = "python"
				case "none", "text":
				default:
					lang = l
				}
				break
			}
		}
	}
	if lang == "" {
		return ""
	}
	class := "language-" + lang
	for i := range pre.Attr {
		if pre.Attr[i].Key == "class" && pre.Attr[i].Namespace == "" {
			pre.Attr[i].Val = class
			return class
		}
	}
	pre.Attr = append(pre.Attr, html.Attribute{Key: "class", Val: class})
	return class
}
