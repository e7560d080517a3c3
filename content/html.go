package content

import (
	"bytes"
	"context"
	"fmt"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTML to Markdown or text: the steps of one conversion (parse, clean,
// extract, write) and the choice between the article and the whole page.

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
	root, notes, err := parseHTML(ctx, src)
	if err != nil {
		return Document{}, err
	}
	doc.Notes = append(doc.Notes, notes...)
	page := prepare(ctx, root, opts.BaseURL, outputBudget(len(src)))
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	doc.Title = page.title
	if note := javaScriptNote(src, page.textRunes); note != "" {
		doc.Notes = append(doc.Notes, note)
	}

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
				if root, _, err = parseHTML(ctx, src); err != nil {
					return Document{}, err
				}
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
	doc.Format = Markdown
	if format == Text {
		doc.Format = Text
	}
	doc.Text, notes = render(ctx, node, limit, doc.Format == Markdown)
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
	// The code blocks' languages are classes readability would strip.
	p.ClassesToPreserve = append(p.ClassesToPreserve, page.codeClasses...)
	// Keep readability's own links as prepare left them (already absolute
	// against the right base, fragments kept): pass no URL.
	art, err := p.ParseAndMutate(root, nil)
	if err != nil || art.Node == nil {
		return nil, "", false
	}
	n := textRunes(art.Node)
	switch {
	case n < minExtractRunes && page.textRunes > n:
		return nil, "", false
	case n*4 < page.textRunes:
		// Under a quarter of the page: readability latched onto a
		// fragment (a Debian reference chapter gave one table of 2.3 KB
		// out of 36 KB at the old 5 % threshold).
		return nil, "", false
	case n*2 < page.textRunes && page.headings >= 10 && headings(art.Node)*5 < page.headings:
		// Under half the text and under a fifth of the headings of a page
		// that has at least ten: one section of a chapter whose sections
		// are siblings (DocBook's div.section: the Debian reference gave
		// one of nine sections, without its heading). Measured on
		// go-readability's test pages, where it costs 10 more fallbacks
		// of 134 (docs/EXTRACTION.md).
		return nil, "", false
	case loneTable(page, n):
		// A table and nothing else is rarely the article: its headings
		// and the prose around it were lost.
		return nil, "", false
	}
	return art.Node, collapseSpace(art.Title()), true
}

// headings counts the h1–h3 elements under n.
func headings(n *html.Node) int {
	count := 0
	for c := nextNode(n, n, true); c != nil; c = nextNode(c, n, true) {
		if c.Type == html.ElementNode && (c.DataAtom == atom.H1 || c.DataAtom == atom.H2 || c.DataAtom == atom.H3) {
			count++
		}
	}
	return count
}

// loneTable reports whether the article, of runes text runes, is one of
// the page's tables and (nearly) nothing else, while the page has more:
// its text is within 10 % of a table's that prepare counted before
// readability rewrote the tree (readability may turn a table it takes for
// layout into plain blocks, so the article itself need not be a <table>).
func loneTable(page pageInfo, runes int) bool {
	if runes*10 >= page.textRunes*9 {
		return false // the article is the page: nothing to fall back to
	}
	for _, t := range page.tableRunes {
		if t*10 >= runes*9 && runes*10 >= t*9 {
			return true
		}
	}
	return false
}

// minPageRunes: a page whose body shows fewer non-space runes than this,
// and that has scripts, is probably built by JavaScript.
const minPageRunes = 200

// javaScriptNote is the note for a page that yields almost no text but
// has scripts (a single-page application's shell, a page that renders its
// content in the browser): ocfetch runs no JavaScript, so the user should
// know why the content is empty. textRunes counts the body's visible text.
func javaScriptNote(src []byte, textRunes int) string {
	if textRunes >= minPageRunes || !containsFold(src, "<script") {
		return ""
	}
	return fmt.Sprintf("this page may need JavaScript: it has scripts and almost no text (%d characters), and ocfetch does not run scripts", textRunes)
}

// containsFold reports whether s contains the lower-case ASCII needle,
// ignoring ASCII case, without copying s.
func containsFold(s []byte, needle string) bool {
	for i := 0; i+len(needle) <= len(s); i++ {
		j := bytes.IndexByte(s[i:], needle[0])
		if j < 0 {
			return false
		}
		i += j
		if i+len(needle) <= len(s) && bytes.EqualFold(s[i:i+len(needle)], []byte(needle)) {
			return true
		}
	}
	return false
}
