package content

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// renderText renders the tree under n as readable plain text: blocks on
// their own lines (paragraphs, headings, lists and tables separated by a
// blank line), "- " and "1. " list bullets indented by nesting, table
// cells separated by " | ", <pre> kept verbatim, white space elsewhere
// collapsed, no markup. Link targets and images without alt text are not
// shown.
//
// Bounds as for renderMarkdown: at most limit bytes (then a cutNote), line
// prefixes up to maxIndent, ctx checked every ctxCheckEvery nodes.
func renderText(ctx context.Context, n *html.Node, limit int) (string, []string) {
	buf := newOutBuf(limit)
	defer buf.release()
	w := textWriter{lineLayout: lineLayout{buf: &buf, atLineStart: true}, guard: walkGuard{ctx: ctx, left: ctxCheckEvery}}
	w.node(n, 0)
	text := string(bytes.TrimSpace(buf.finish()))
	var notes []string
	if w.flattened {
		notes = append(notes, flattenedNote)
	}
	if buf.cut {
		notes = append(notes, cutNote(buf.Len()))
	}
	return text, notes
}

type textWriter struct {
	lineLayout
	guard walkGuard
	pre   int // >0 inside <pre>: text is verbatim
}

// word writes s (no white space in it) after any owed breaks or space.
func (w *textWriter) word(s string) {
	w.flush()
	w.atLineStart, w.afterBullet = false, false
	w.buf.WriteString(s)
	w.wroteAny = true
}

func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.preText(s)
		return
	}
	for s != "" {
		word, space, rest := nextWord(s, true)
		if space && w.wroteAny {
			w.space = true
		}
		if word != "" {
			w.word(word)
		}
		s = rest
	}
}

// preText writes preformatted text, keeping its line breaks and indenting
// each line with the current indent.
func (w *textWriter) preText(s string) {
	for len(s) > 0 && !w.buf.full() {
		line, rest, found := strings.Cut(s, "\n")
		if line != "" {
			w.flush()
			w.atLineStart, w.afterBullet = false, false
			w.buf.WriteString(line)
			w.wroteAny = true
		}
		if found {
			if w.atLineStart && w.newlines == 0 {
				w.buf.WriteString(w.indent)
			}
			w.buf.WriteByte('\n')
			w.atLineStart, w.newlines, w.space = true, 0, false
			w.wroteAny = true
		}
		s = rest
	}
}

func (w *textWriter) node(n *html.Node, depth int) {
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
	switch n.DataAtom {
	case atom.Br:
		if w.inline > 0 {
			w.space = true
		} else {
			w.flushLineBreak()
		}
	case atom.Hr:
		w.breakLines(2)
		w.word("----")
		w.breakLines(2)
	case atom.Img:
		if alt, ok := attr(n, "alt"); ok {
			w.text(alt)
		}
	case atom.Pre:
		w.breakLines(2)
		w.pre++
		w.children(n, depth)
		w.pre--
		w.breakLines(2)
	case atom.Ul, atom.Ol, atom.Menu:
		w.list(n, depth)
	case atom.Table:
		w.table(n, depth)
	case atom.Td, atom.Th:
		// A cell outside a row structure (or a lone cell): keep it apart.
		w.space = true
		w.children(n, depth)
		w.space = true
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Blockquote, atom.Dl, atom.Figure, atom.Address, atom.Fieldset:
		w.breakLines(2)
		w.children(n, depth)
		w.breakLines(2)
	case atom.Dd:
		w.breakLines(1)
		saved := w.indent
		w.indentBy("  ")
		w.children(n, depth)
		w.indent = saved
		w.breakLines(1)
	default:
		if isBlockAtom(n.DataAtom) {
			w.breakLines(1)
			w.children(n, depth)
			w.breakLines(1)
			return
		}
		w.children(n, depth)
	}
}

// flushLineBreak writes an explicit line break (<br>), even on an empty line.
func (w *textWriter) flushLineBreak() {
	if !w.wroteAny {
		return
	}
	if w.newlines > 0 {
		w.flush()
	}
	w.buf.WriteByte('\n')
	w.atLineStart, w.space = true, false
}

func (w *textWriter) children(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, depth+1)
	}
}

func (w *textWriter) list(n *html.Node, depth int) {
	nested := w.indent != "" || hasAncestor(n, atom.Li)
	if nested {
		w.breakLines(1)
	} else {
		w.breakLines(2)
	}
	ordered := n.DataAtom == atom.Ol
	num := listStart(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			w.node(c, depth+1)
			continue
		}
		w.breakLines(1)
		bullet := "- "
		if ordered {
			bullet = strconv.Itoa(num) + ". "
			num++
		}
		if w.inline > 0 {
			w.word(strings.TrimSpace(bullet))
		} else {
			w.afterBullet = false
			w.flushForBullet()
			w.buf.WriteString(bullet)
			w.afterBullet = true
		}
		saved := w.indent
		w.indentBy(strings.Repeat(" ", len(bullet)))
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

// flushForBullet starts a fresh line at the current indent for a bullet.
func (w *textWriter) flushForBullet() {
	if w.wroteAny && !w.atLineStart && w.newlines == 0 {
		w.newlines = 1
	}
	w.flush()
	w.atLineStart = false
	w.wroteAny = true
}

func (w *textWriter) table(n *html.Node, depth int) {
	w.breakLines(2)
	var rows []*html.Node
	collectRows(n, &rows, 0)
	for _, tr := range rows {
		if w.guard.stop {
			return
		}
		w.breakLines(1)
		first := true
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
				continue
			}
			if !first {
				w.word("|")
				w.space = true
			}
			first = false
			w.inline++
			w.children(c, depth+1)
			w.inline--
			w.space = true
		}
		w.space = false
		w.breakLines(1)
	}
	if cap := findChild(n, atom.Caption); cap != nil {
		w.breakLines(1)
		w.children(cap, depth+1)
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
