package content

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

const (
	// maxExtractElements bounds main-content extraction: readability's
	// scoring walks the tree many times, so above this many elements the
	// whole page is converted instead (with a note).
	maxExtractElements = 50_000
	// minExtractRunes: an extracted article with fewer non-space runes than
	// this, on a page that has more, is "too little" and the whole page is
	// used instead.
	minExtractRunes = 250
	// maxExtractDepth bounds extraction too: readability rescans the text
	// under every ancestor of a candidate, so its cost grows with depth
	// times text. Real pages stay well under this.
	maxExtractDepth = 100
	// maxLinkLen bounds a link or image source made absolute: one whose
	// absolute form would be longer (a long <base href> or final URL
	// repeated into every relative link) is left as written, with a note.
	// A <base href> longer than this is ignored, with a note.
	maxLinkLen = 2048
)

// convertHTML turns decoded UTF-8 HTML into Markdown or Text. The page is
// parsed once; extraction mutates that tree in place and the converter
// reads the extracted node directly (no render and re-parse). Only when
// extraction finds too little is the page parsed a second time.
//
// The work is bounded by the body size, and the output by
// outputBudget(len(src)); ctx is checked between steps and every
// ctxCheckEvery nodes within the walks.
func convertHTML(ctx context.Context, src []byte, format Format, opts Options, doc Document) (Document, error) {
	root, notes := parseHTML(src)
	doc.Notes = append(doc.Notes, notes...)
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	page := prepare(ctx, root, opts.BaseURL, outputBudget(len(src)))
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	doc.Title = page.title

	node := page.body
	if !opts.FullPage {
		switch {
		case page.elements > maxExtractElements:
			doc.Notes = append(doc.Notes, "page too large for main-content extraction: whole page shown")
		case page.maxDepth > maxExtractDepth:
			doc.Notes = append(doc.Notes, "page nested too deeply for main-content extraction: whole page shown")
		default:
			if art, title, ok := extract(root, page); ok {
				node = art
				if title != "" {
					doc.Title = title
				}
			} else {
				// Extraction mutated the tree; start again from the bytes.
				if err := ctx.Err(); err != nil {
					return Document{}, err
				}
				root, _ = parseHTML(src)
				page = prepare(ctx, root, opts.BaseURL, outputBudget(len(src)))
				node = page.body
			}
		}
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
	}

	if page.baseIgnored {
		doc.Notes = append(doc.Notes, fmt.Sprintf("<base href> longer than %d bytes ignored", maxLinkLen))
	}
	if page.longLinks > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d links left as written: too long to make absolute (over %d bytes, or over the output budget in all)", page.longLinks, maxLinkLen))
	}
	limit := outputBudget(len(src))
	switch format {
	case Text:
		doc.Text, notes = renderText(ctx, node, limit)
		doc.Format = Text
	default:
		doc.Text, notes = renderMarkdown(ctx, node, limit)
		doc.Format = Markdown
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	doc.Notes = append(doc.Notes, notes...)
	return doc, nil
}

// extract runs readability on root (mutating it) and reports the article
// node, its title, and whether the article is substantial enough to use.
func extract(root *html.Node, page pageInfo) (*html.Node, string, bool) {
	p := readability.NewParser()
	// Keep readability's own links as prepare left them (already absolute
	// against the right base, fragments kept): pass no URL.
	art, err := p.ParseAndMutate(root, nil)
	if err != nil || art.Node == nil {
		return nil, "", false
	}
	n := textRunes(art.Node)
	if n < minExtractRunes && page.textRunes > n {
		return nil, "", false
	}
	if n*20 < page.textRunes {
		// Less than 5% of the page: readability latched onto a fragment.
		return nil, "", false
	}
	return art.Node, collapseSpace(art.Title()), true
}

// parseHTML parses src. x/net/html refuses documents nested deeper than
// 512 open elements; such a document is flattened (tags beyond
// flattenDepth dropped, their text kept) and parsed again.
func parseHTML(src []byte) (*html.Node, []string) {
	root, err := html.Parse(bytes.NewReader(src))
	if err == nil {
		return root, nil
	}
	root, err = html.Parse(bytes.NewReader(flatten(src, flattenDepth)))
	if err == nil {
		return root, []string{"HTML nested too deeply: elements below depth 256 were flattened"}
	}
	// Cannot happen for in-memory input short of a parser bug; keep the text.
	root = &html.Node{Type: html.DocumentNode}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	root.AppendChild(body)
	body.AppendChild(&html.Node{Type: html.TextNode, Data: tokenText(src)})
	return root, []string{"HTML could not be parsed: text shown without structure"}
}

const flattenDepth = 256

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "param": true,
	"source": true, "track": true, "wbr": true,
}

// flatten rewrites src with every start and end tag deeper than maxDepth
// dropped (replaced by a space so words do not fuse); text, comments and
// shallower tags are copied as they are. The depth count is the naive
// one (no implied end tags), which only ever drops more, never less.
func flatten(src []byte, maxDepth int) []byte {
	out := make([]byte, 0, len(src))
	z := html.NewTokenizer(bytes.NewReader(src))
	depth := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out
		case html.StartTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				if depth < maxDepth {
					out = append(out, z.Raw()...)
				}
				continue
			}
			depth++
			if depth > maxDepth {
				out = appendSpace(out)
				continue
			}
		case html.EndTagToken:
			d := depth
			if depth > 0 {
				depth--
			}
			if d > maxDepth {
				out = appendSpace(out)
				continue
			}
		case html.SelfClosingTagToken:
			if depth >= maxDepth {
				continue
			}
		}
		out = append(out, z.Raw()...)
	}
}

// appendSpace appends one space unless out already ends in one, so a run
// of dropped tags does not become a run of spaces.
func appendSpace(out []byte) []byte {
	if len(out) > 0 && out[len(out)-1] == ' ' {
		return out
	}
	return append(out, ' ')
}

// tokenText is the text of src without any markup.
func tokenText(src []byte) string {
	var b strings.Builder
	z := html.NewTokenizer(bytes.NewReader(src))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String())
		case html.StartTagToken:
			if name, _ := z.TagName(); removedTag[atom.Lookup(name)] {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); removedTag[atom.Lookup(name)] && skip > 0 {
				skip--
			}
			b.WriteByte(' ')
		case html.TextToken:
			if skip == 0 {
				b.WriteString(collapseSpace(string(z.Text())))
				b.WriteByte(' ')
			}
		}
	}
}

// rawTitle finds the <title> of a page without building a tree.
func rawTitle(src []byte) string {
	if t, ok := scanTitle(src); ok {
		return t
	}
	return tokenTitle(src)
}

// tokenTitle is rawTitle by the tokenizer, for what scanTitle leaves.
func tokenTitle(src []byte) string {
	z := html.NewTokenizer(bytes.NewReader(src))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "title":
				if z.Next() == html.TextToken {
					return collapseSpace(string(z.Text()))
				}
				return ""
			case "body":
				return ""
			}
		}
	}
}

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

// fixURLs drops script links and data: images from n and makes its link
// or image source absolute; it returns how many were left as written
// because they would be too long.
func fixURLs(n *html.Node, base *linkBase) (long int) {
	switch n.DataAtom {
	case atom.A, atom.Area:
		for i := range n.Attr {
			if n.Attr[i].Key != "href" || n.Attr[i].Namespace != "" {
				continue
			}
			href := strings.TrimSpace(n.Attr[i].Val)
			if hasSchemePrefix(href, "javascript:") || hasSchemePrefix(href, "vbscript:") {
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
				src := strings.TrimSpace(a.Val)
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

func hasSchemePrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
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
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
