package content

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Parsing HTML into a tree: the bounded parser (internal/htmlparse), the
// flattening of documents nested too deeply, and the tokenizer-only
// readings (title, text) that need no tree.

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
