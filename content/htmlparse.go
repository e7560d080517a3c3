package content

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/ocfetch/ocfetch/content/internal/htmlparse"
	"github.com/ocfetch/ocfetch/refusal"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Parsing HTML into a tree: the bounded parser (internal/htmlparse), the
// flattening of documents nested too deeply, and the tokenizer-only
// readings (title, text) that need no tree.

// Tree budget. Building the tree is charged (internal/htmlparse): one
// unit per token, per node and per attribute, and one per eight open
// elements its scope checks scan. Real pages spend about 0.1
// unit per byte (the Go spec: 27,000 units for 290 KB); a page of nothing
// but "<p>x" spends 1. The budget, min(maxTreeUnits, treeUnitsSlack +
// len), keeps every real page and refuses formatting-element bombs
// (which spend millions of units per kilobyte) after a few megabytes of
// tree; at maxTreeUnits the tree stays near 100 MiB, so the whole
// conversion stays under 256 MiB of memory.
const (
	maxTreeUnits   = 1 << 21
	treeUnitsSlack = 1 << 18
)

// treeBudget is the tree budget for a page of n bytes.
func treeBudget(n int) int { return min(maxTreeUnits, treeUnitsSlack+n) }

// errTooComplex is the refusal for a page whose tree would pass its
// budget. Its message never names the page, only what to do.
func errTooComplex(n int) *refusal.Error {
	return refusal.Newf(refusal.ContentTooComplex,
		"the HTML page (%s) is too complex to convert: building its tree would pass the work budget of %d units", formatSize(n), treeBudget(n)).
		WithHint("ask for format: raw to get the body as received")
}

// parseHTML parses src with the bounded parser. x/net/html refuses
// documents nested deeper than 512 open elements; such a document is
// flattened (tags beyond flattenDepth dropped, their text kept) and
// parsed again. A page whose tree would pass treeBudget is refused with
// content_too_complex (errTooComplex); a done ctx gives ctx.Err().
func parseHTML(ctx context.Context, src []byte) (*html.Node, []string, error) {
	budget := treeBudget(len(src))
	root, err := htmlparse.Parse(ctx, bytes.NewReader(src), budget)
	if err == nil {
		return root, nil, nil
	}
	if perr := parseStop(ctx, err, len(src)); perr != nil {
		return nil, nil, perr
	}
	root, err = htmlparse.Parse(ctx, bytes.NewReader(flatten(src, flattenDepth)), budget)
	if err == nil {
		return root, []string{"HTML nested too deeply: elements below depth 256 were flattened"}, nil
	}
	if perr := parseStop(ctx, err, len(src)); perr != nil {
		return nil, nil, perr
	}
	// Cannot happen for in-memory input short of a parser bug; keep the text.
	root = &html.Node{Type: html.DocumentNode}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	root.AppendChild(body)
	body.AppendChild(&html.Node{Type: html.TextNode, Data: tokenText(src)})
	return root, []string{"HTML could not be parsed: text shown without structure"}, nil
}

// parseStop is the error that ends a conversion for a parse error err:
// ctx's when it is done, content_too_complex past the budget, nil for the
// errors the flattening fallback handles (too deep).
func parseStop(ctx context.Context, err error, n int) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, htmlparse.ErrTooComplex):
		return errTooComplex(n).Wrap(err)
	}
	return nil
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
