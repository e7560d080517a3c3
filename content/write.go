package content

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The one walk both output formats share. writer reads the tree once and
// decides its blocks the same way for Markdown and for text: which
// elements are paragraphs, headings (one line), quotes, definitions,
// lists (their nesting and item numbers: listItems), tables (their rows
// and at most maxTableCols columns: rowCells), line breaks and rules.
// Only how a block is written differs by format: the Markdown renderer's
// markup, escapes, links and code (markdown.go), the text renderer's
// verbatim <pre> (text.go). Their line state is lineLayout (layout.go).

// writer renders one tree as Markdown (markdown) or plain text.
type writer struct {
	lineLayout
	guard     walkGuard
	markdown  bool
	cell      bool                // Markdown table cell: "|" is escaped everywhere
	pre       int                 // text: >0 inside <pre>, text is verbatim
	wideTable bool                // table cells past maxTableCols were dropped
	textMemo  map[*html.Node]bool // hasText answers for elements (Markdown)
}

// render writes the tree under n as Markdown or as plain text, in one
// pass with a pooled buffer, and returns the text and the notes on what
// it left out (markdown.go and text.go say what each format writes).
//
// Bounds: at most limit bytes are written (then the walk stops and a
// cutNote is returned), a line prefix never passes maxIndent, a table
// keeps at most maxTableCols columns and (Markdown) pads short rows only
// while it has at most maxTableCells cells. The walk checks ctx every
// ctxCheckEvery nodes and stops when it is done; the caller checks
// ctx.Err().
func render(ctx context.Context, n *html.Node, limit int, markdown bool) (string, []string) {
	buf := newOutBuf(limit)
	defer buf.release()
	w := writer{lineLayout: lineLayout{buf: &buf, atLineStart: true}, guard: walkGuard{ctx: ctx, left: ctxCheckEvery}, markdown: markdown}
	w.node(n, 0)
	text := string(bytes.TrimSpace(buf.finish()))
	return text, w.notes()
}

// notes says what the walk left out.
func (w *writer) notes() []string {
	var notes []string
	if w.flattened {
		notes = append(notes, flattenedNote)
	}
	if w.wideTable {
		notes = append(notes, fmt.Sprintf("table columns after the %dth not shown", maxTableCols))
	}
	if w.buf.cut {
		notes = append(notes, cutNote(w.buf.Len()))
	}
	return notes
}

// raw writes s (markup, or text already escaped) after owed breaks/space.
func (w *writer) raw(s string) {
	w.flush()
	w.atLineStart, w.afterBullet = false, false
	w.buf.WriteString(s)
	w.wroteAny = true
}

// text writes s as words with white space collapsed (verbatim inside a
// text <pre>). Markdown splits words at ASCII white space only, since it
// keeps other spaces; text at every Unicode space but U+00A0.
func (w *writer) text(s string) {
	if w.pre > 0 {
		w.preText(s)
		return
	}
	for s != "" {
		word, space, rest := nextWord(s, !w.markdown)
		if space && w.wroteAny {
			w.space = true
		}
		if word != "" {
			w.word(word)
		}
		s = rest
	}
}

func (w *writer) children(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, depth+1)
	}
}

// block writes n's children as a block of their own: after a blank line
// (breaks 2) or a line break (1), and before one.
func (w *writer) block(n *html.Node, depth, breaks int) {
	w.breakLines(breaks)
	w.children(n, depth)
	w.breakLines(breaks)
}

func (w *writer) node(n *html.Node, depth int) {
	if w.guard.left--; w.guard.left <= 0 || w.buf.Len() >= w.buf.limit {
		if w.guard.check(w.buf) {
			return
		}
	}
	switch kindOf(n, depth) {
	case textNode:
		w.text(n.Data)
		return
	case containerNode:
		w.children(n, depth)
		return
	case skipNode:
		return
	}
	switch a := n.DataAtom; a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.heading(n, depth, int(n.Data[1]-'0'))
	case atom.P, atom.Figure, atom.Address, atom.Fieldset, atom.Dl:
		w.block(n, depth, 2)
	case atom.Blockquote:
		w.breakLines(2)
		saved := w.indent
		if w.markdown && w.inline == 0 {
			w.indentBy("> ")
		}
		w.children(n, depth)
		w.indent = saved
		w.breakLines(2)
	case atom.Dd:
		w.breakLines(1)
		saved := w.indent
		if w.inline == 0 {
			w.indentBy("  ")
		}
		w.children(n, depth)
		w.indent = saved
		w.breakLines(1)
	case atom.Br:
		w.lineBreak()
	case atom.Hr:
		if w.inline == 0 {
			w.breakLines(2)
			if w.markdown {
				w.raw("---")
			} else {
				w.raw("----")
			}
			w.breakLines(2)
		}
	case atom.Pre:
		if w.markdown {
			w.fenced(n)
		} else { // verbatim text
			w.pre++
			w.block(n, depth, 2)
			w.pre--
		}
	case atom.Ul, atom.Ol, atom.Menu:
		w.list(n, depth)
	case atom.Table:
		if w.markdown && w.inline == 0 {
			w.gfmTable(n, depth)
		} else {
			w.lineTable(n, depth)
		}
	case atom.Td, atom.Th:
		// A cell outside a row structure (or a lone cell): keep it apart.
		w.space = true
		w.children(n, depth)
		w.space = true
	case atom.Img:
		if w.markdown {
			w.image(n)
		} else if alt, ok := attr(n, "alt"); ok {
			w.text(alt)
		}
	case atom.A, atom.Em, atom.I, atom.Cite, atom.Dfn, atom.Strong, atom.B, atom.Del, atom.S, atom.Strike,
		atom.Code, atom.Kbd, atom.Samp, atom.Tt, atom.Var:
		if w.markdown {
			w.markup(n, depth)
		} else {
			w.children(n, depth)
		}
	default:
		if isBlockAtom(a) {
			w.block(n, depth, 1)
			return
		}
		w.children(n, depth)
	}
}

// heading writes a heading on one line of its own (in Markdown after its
// "#" marks); inside a line (a table cell, a link) its text is kept
// apart by spaces. An empty heading writes nothing.
func (w *writer) heading(n *html.Node, depth, level int) {
	w.breakLines(2)
	if w.markdown && w.inline == 0 {
		before, mark := w.lineLayout, w.buf.Len()
		w.raw("######"[:level])
		end := w.buf.Len()
		w.space = true
		w.inline++
		w.children(n, depth)
		w.inline--
		if w.buf.Len() == end { // empty: as if it were not there
			w.buf.Truncate(mark)
			before.flattened = w.flattened
			w.lineLayout = before
			return
		}
	} else {
		w.inline++
		w.children(n, depth)
		w.inline--
	}
	w.space = false
	w.breakLines(2)
}

// lineBreak is a <br>: a new line, or a space inside a line.
func (w *writer) lineBreak() {
	if w.inline > 0 {
		w.breakLines(1)
	} else if w.wroteAny {
		w.buf.WriteByte('\n')
		w.atLineStart, w.space = true, false
	}
}

// maxListNumber is the largest item number a CommonMark list marker can
// hold (nine digits).
const maxListNumber = 999_999_999

// listItems is the model of one list, the same for both formats: whether
// it is ordered and the number of its first item. An <ol start> is read
// as a browser reads it (white space, a sign and digits; what follows the
// digits is ignored: "3rd" is 3) and kept when every item's number fits a
// CommonMark marker (0 to maxListNumber); otherwise, and for a value that
// is no number, the list counts from 1. A negative start, which Markdown
// cannot write, counts from 1 in the text too, so that the two formats
// never number the same list differently.
func listItems(n *html.Node) (ordered bool, first int) {
	if n.DataAtom != atom.Ol {
		return false, 1
	}
	s, ok := attr(n, "start")
	if !ok {
		return true, 1
	}
	start, valid := htmlInt(s)
	if !valid || start < 0 {
		return true, 1
	}
	items := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Li {
			items++
		}
	}
	if start > maxListNumber-max(items-1, 0) {
		return true, 1
	}
	return true, start
}

// htmlInt parses s by HTML's rules for parsing integers (leading ASCII
// white space, an optional sign, then digits; the rest ignored), bounded:
// a value past maxListNumber is returned as maxListNumber+1.
func htmlInt(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	v, digits := 0, 0
	for ; digits < len(s) && '0' <= s[digits] && s[digits] <= '9'; digits++ {
		v = min(v*10+int(s[digits]-'0'), maxListNumber+1)
	}
	if neg {
		v = -v
	}
	return v, digits > 0
}

// list writes the items of a list, each after its marker ("- ", or
// "N. " numbered as listItems says) with its lines indented under the
// marker; inside a line, the markers are words between the items.
func (w *writer) list(n *html.Node, depth int) {
	ordered, num := listItems(n)
	// A list in an item follows its text on the next line, unless it is
	// numbered from other than 1: CommonMark would read that marker as
	// more of the text, so it gets a blank line as an outer list does.
	nested := hasAncestor(n, atom.Li) && (!ordered || num == 1)
	if nested {
		w.breakLines(1)
	} else {
		w.breakLines(2)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			w.node(c, depth+1)
			continue
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		if w.inline > 0 {
			w.breakLines(1)
			w.raw(marker[:len(marker)-1])
			w.space = true
		} else {
			if w.wroteAny && w.newlines == 0 && !w.atLineStart {
				w.newlines = 1
			}
			w.afterBullet = false
			w.raw(marker)
			w.afterBullet = true
		}
		saved := w.indent
		w.indentBy(strings.Repeat(" ", len(marker)))
		w.children(c, depth+1)
		w.indent = saved
		w.afterBullet = false
		w.breakLines(1)
	}
	if nested {
		w.breakLines(1)
	} else {
		w.breakLines(2)
	}
}

// rowCells calls cell for each <td> and <th> of the table row tr with the
// columns it spans (its colspan, at least 1), while the row has fewer
// than maxTableCols columns; a cell past them is dropped and recorded in
// wideTable. cell returns false to stop.
func (w *writer) rowCells(tr *html.Node, cell func(c *html.Node, span int) bool) {
	cols := 0
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
			continue
		}
		if cols >= maxTableCols {
			w.wideTable = true
			return
		}
		span := 1
		if s, ok := attr(c, "colspan"); ok {
			if k, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && k > 1 {
				span = min(k, maxTableCols-cols)
			}
		}
		cols += span
		if !cell(c, span) {
			return
		}
	}
}

// lineTable writes a table as lines: a row a line, its cells separated
// by " | " (the text format's tables, and a table inside a line in
// either format, where the rows run on).
func (w *writer) lineTable(n *html.Node, depth int) {
	w.breakLines(2)
	var rows []*html.Node
	collectRows(n, &rows, 0)
	for _, tr := range rows {
		if w.guard.stop {
			return
		}
		w.breakLines(1)
		first := true
		w.rowCells(tr, func(c *html.Node, _ int) bool {
			if !first {
				w.word("|")
				w.space = true
			}
			first = false
			w.inline++
			w.children(c, depth+1)
			w.inline--
			w.space = true
			return true
		})
		w.space = false
		w.breakLines(1)
	}
	if c := findChild(n, atom.Caption); c != nil {
		w.breakLines(1)
		w.children(c, depth+1)
	}
	w.breakLines(2)
}

// collectRows finds the rows of a table, not those of tables nested in it.
func collectRows(n *html.Node, rows *[]*html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Tr:
			*rows = append(*rows, c)
		case atom.Thead, atom.Tbody, atom.Tfoot:
			if depth < 4 {
				collectRows(c, rows, depth+1)
			}
		}
	}
}

func findChild(n *html.Node, a atom.Atom) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == a {
			return c
		}
	}
	return nil
}

func hasAncestor(n *html.Node, a atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == a {
			return true
		}
	}
	return false
}

func isBlockAtom(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Body, atom.Center, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dt, atom.Figcaption, atom.Footer,
		atom.Form, atom.Header, atom.Hgroup, atom.Html, atom.Legend, atom.Li, atom.Main,
		atom.Nav, atom.Section, atom.Summary, atom.Tr, atom.Caption, atom.Option,
		atom.Thead, atom.Tbody, atom.Tfoot, atom.Noscript, atom.Search:
		return true
	}
	return false
}
