package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The Markdown renderer of the one walk (write.go): CommonMark with GFM
// tables:
//   - headings as ATX ("## Title"), paragraphs separated by a blank line;
//   - <pre> (with or without <code>) as a fenced block, its language taken
//     from a "language-x"/"lang-x" class, the fence longer than any
//     backtick run inside;
//   - lists with "- " and "1. " markers, nested by indentation;
//   - tables as GFM tables (first row as header, "|" escaped in cells,
//     cells kept on one line, colspan padded with empty cells);
//   - links "[text](url)" and images "![alt](src)" with the URLs prepare
//     made absolute ("![](src)" for an image inside a <figure> or
//     <picture> whose alt is empty; other images with alt="" are
//     decorative and left out); emphasis, strong, strikethrough and inline code;
//   - blockquotes with "> " prefixes; text escaped where Markdown would
//     otherwise read it as markup.

const (
	// maxTableCols: cells after the 64th of a row (colspan counted) are
	// not shown, with a note.
	maxTableCols = 64
	// maxTableCells: short rows are padded with empty cells to the
	// table's width only while rows×columns stays under this; past it they
	// are written as they are (GFM reads missing cells as empty).
	maxTableCells = 1 << 16
)

// word writes one word of text; in Markdown escaped: characters that are markup
// anywhere (\ * ` [ ] and _ outside words, < before a tag-like character),
// "|" in table cells, and at the start of a line the characters that open a
// block (# > + - = and "1." style numbers).
func (w *writer) word(s string) {
	if !w.markdown {
		w.raw(s)
		return
	}
	w.flush()
	lineStart := w.atLineStart
	w.atLineStart, w.afterBullet = false, false
	w.wroteAny = true
	if lineStart && needsLineStartEscape(s) {
		if c := s[0]; c >= '0' && c <= '9' {
			i := 0
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			w.escapedInline(s[:i])
			w.buf.WriteByte('\\')
			s = s[i:]
		} else {
			w.buf.WriteByte('\\')
		}
	}
	w.escapedInline(s)
}

func needsLineStartEscape(s string) bool {
	switch s[0] {
	case '#', '>', '+', '-', '=':
		return true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && i+1 == len(s)
}

func (w *writer) escapedInline(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		esc := false
		switch c {
		case '\\', '*', '`', '[', ']':
			esc = true
		case '_':
			esc = !(i > 0 && isWordByte(s[i-1]) && i+1 < len(s) && isWordByte(s[i+1]))
		case '<':
			esc = i+1 < len(s) && (isLetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?')
		case '|':
			esc = w.cell
		}
		if esc {
			w.buf.WriteString(s[last:i])
			w.buf.WriteByte('\\')
			last = i
		}
	}
	w.buf.WriteString(s[last:])
}

func isLetter(c byte) bool   { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isWordByte(c byte) bool { return isLetter(c) || ('0' <= c && c <= '9') || c >= 0x80 }

// markup writes the inline elements only Markdown marks: links,
// emphasis, strong, strikethrough and code.
func (w *writer) markup(n *html.Node, depth int) {
	switch n.DataAtom {
	case atom.A:
		w.link(n, depth)
	case atom.Em, atom.I, atom.Cite, atom.Dfn:
		w.delimited(n, depth, "*")
	case atom.Strong, atom.B:
		w.delimited(n, depth, "**")
	case atom.Del, atom.S, atom.Strike:
		w.delimited(n, depth, "~~")
	default: // code, kbd, samp, tt, var
		if n.DataAtom == atom.Var && !hasAncestor(n, atom.Code) {
			w.delimited(n, depth, "*")
			return
		}
		w.inlineCode(collapseSpace(textOf(n)))
	}
}

// delimited wraps inline content in d (e.g. "**"), keeping surrounding
// space outside the delimiters and writing nothing for empty content.
func (w *writer) delimited(n *html.Node, depth int, d string) {
	if !w.hasText(n) && findChild(n, atom.Img) == nil {
		w.children(n, depth)
		return
	}
	w.raw(d)
	w.glue = true
	w.children(n, depth)
	w.glue = false
	hadSpace := w.space
	w.space = false
	w.buf.WriteString(d)
	w.space = hadSpace
}

// hasText reports whether any text under n is not all white space (as
// strings.TrimSpace sees it), the test strings.TrimSpace(textOf(n)) != ""
// without building the text. Answers for elements are memoized for the
// walk, so nested emphasis (<b><b><b>… over megabytes) costs each node
// and each text once, not once per enclosing element.
func (w *writer) hasText(n *html.Node) bool {
	if c := n.FirstChild; c != nil && c.Type == html.TextNode && len(c.Data) < 256 && strings.TrimSpace(c.Data) != "" {
		return true // the common case, <em>word</em>: nothing to remember
	}
	if v, ok := w.textMemo[n]; ok {
		return v
	}
	found := false
	for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			found = strings.TrimSpace(c.Data) != ""
		case c.FirstChild != nil:
			found = w.hasText(c)
		}
	}
	if w.textMemo == nil {
		w.textMemo = make(map[*html.Node]bool)
	}
	w.textMemo[n] = found
	return found
}

func (w *writer) inlineCode(s string) {
	if s == "" {
		return
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if s[0] == '`' || s[len(s)-1] == '`' {
		pad = " "
	}
	if w.cell {
		s = strings.ReplaceAll(s, "|", `\|`) // GFM splits cells before code spans
	}
	w.raw(fence + pad + s + pad + fence)
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// fenced writes a fenced code block with the text under n kept verbatim
// (links and highlighting spans inside it are flattened to their text).
func (w *writer) fenced(n *html.Node) {
	code := preformattedText(n)
	if w.inline > 0 {
		w.inlineCode(collapseSpace(code))
		return
	}
	code = strings.TrimRight(code, " \t\r\n")
	code = strings.TrimLeft(code, "\r\n")
	if code == "" {
		return
	}
	lang := codeLanguage(n)
	if lang == "" {
		if c := findChild(n, atom.Code); c != nil {
			lang = codeLanguage(c)
		}
	}
	fence := "```"
	if l := longestRun(code, '`'); l >= 3 {
		fence = strings.Repeat("`", l+1)
	}
	w.breakLines(2)
	w.raw(fence + lang)
	for line := range strings.SplitSeq(code, "\n") {
		if w.buf.full() {
			return
		}
		w.buf.WriteByte('\n')
		if line != "" {
			w.buf.WriteString(w.indent)
			w.buf.WriteString(line)
		} else {
			w.buf.WriteString(strings.TrimRight(w.indent, " "))
		}
	}
	w.buf.WriteByte('\n')
	w.buf.WriteString(w.indent)
	w.buf.WriteString(fence)
	w.breakLines(2)
}

// preformattedText is the text under a <pre>, with <br> and the ends of
// block elements (highlighters wrap each line in a <div>) as line breaks.
func preformattedText(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.Type == html.TextNode && c.NextSibling == nil {
		return c.Data
	}
	var b strings.Builder
	var walk func(*html.Node, int)
	walk = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case c.Type != html.ElementNode || depth > maxTextDepth:
			case c.DataAtom == atom.Br:
				b.WriteByte('\n')
			default:
				walk(c, depth+1)
				if isBlockAtom(c.DataAtom) || c.DataAtom == atom.P {
					if s := b.String(); s != "" && s[len(s)-1] != '\n' {
						b.WriteByte('\n')
					}
				}
			}
		}
	}
	walk(n, 0)
	return b.String()
}

// codeLanguage reads a "language-x" or "lang-x" class.
func codeLanguage(n *html.Node) string {
	class, _ := attr(n, "class")
	for f := range strings.FieldsSeq(class) {
		for _, p := range []string{"language-", "lang-"} {
			if len(f) > len(p) && strings.EqualFold(f[:len(p)], p) {
				lang := f[len(p):]
				if strings.ContainsAny(lang, "`~") {
					return ""
				}
				return lang
			}
		}
	}
	return ""
}

func (w *writer) link(n *html.Node, depth int) {
	href, ok := attr(n, "href")
	href = strings.TrimSpace(href)
	if !ok || href == "" {
		w.children(n, depth)
		return
	}
	w.flush()
	w.atLineStart = false
	mark := w.buf.Len()
	hadAny := w.wroteAny
	w.buf.WriteByte('[')
	w.wroteAny = true
	w.glue = true
	w.inline++
	w.children(n, depth)
	w.inline--
	w.glue = false
	if w.buf.Len() == mark+1 {
		w.buf.Truncate(mark) // no content: an icon link, nothing to show
		w.wroteAny = hadAny
		w.atLineStart = mark == 0 || w.buf.Bytes()[mark-1] == '\n'
		return
	}
	hadSpace := w.space
	w.space = false
	w.buf.WriteString("](")
	w.buf.WriteString(w.escapeURL(href))
	w.buf.WriteByte(')')
	w.space = hadSpace
}

func (w *writer) image(n *html.Node) {
	src, _ := attr(n, "src")
	src = strings.TrimSpace(src)
	if src == "" {
		return
	}
	alt, hasAlt := attr(n, "alt")
	if hasAlt && strings.TrimSpace(alt) == "" && !hasAncestor(n, atom.Figure) && !hasAncestor(n, atom.Picture) {
		return // alt="" marks a decorative image, unless it is a figure's
	}
	alt = strings.NewReplacer("[", `\[`, "]", `\]`, "\\", `\\`).Replace(collapseSpace(alt))
	if w.cell {
		alt = strings.ReplaceAll(alt, "|", `\|`) // GFM splits cells at it
	}
	w.raw("![" + alt + "](" + w.escapeURL(src) + ")")
}

var urlEscaper = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\\", "%5C", "\n", "", "\t", "", "\r", "")

// escapeURL percent-encodes what would end or break a Markdown link
// destination (and "|" inside a table cell): a backslash too, which would
// escape the closing parenthesis (url.URL.String encodes it so as well).
func (w *writer) escapeURL(u string) string {
	if strings.ContainsAny(u, " ()<>\\\n\t\r") {
		u = urlEscaper.Replace(u)
	}
	if w.cell && strings.Contains(u, "|") {
		u = strings.ReplaceAll(u, "|", "%7C")
	}
	return u
}

// gfmTable writes a GFM table. Cells are rendered inline into their own
// strings first, since a Markdown row must stay on one line.
func (w *writer) gfmTable(n *html.Node, depth int) {
	var rows []*html.Node
	collectRows(n, &rows, 0)
	var cells [][]string
	cols := 0
	// Cells are rendered before any is written: all of them together may
	// take no more than what is left of the output budget.
	budget := w.buf.remaining()
	subBuf := newOutBuf(budget)
	defer subBuf.release()
	sub := writer{lineLayout: lineLayout{buf: &subBuf, inline: 1}, markdown: true, cell: true, guard: w.guard}
	full, stopped := false, false
	for _, tr := range rows {
		var row []string
		w.rowCells(tr, func(c *html.Node, span int) bool {
			sub.buf.reset(budget)
			sub.wroteAny, sub.space, sub.glue, sub.atLineStart = false, false, false, false
			sub.children(c, depth+1)
			if sub.guard.stop && !sub.buf.cut {
				stopped = true // ctx done
				return false
			}
			cell := strings.TrimSpace(string(sub.buf.finish()))
			row = append(row, cell)
			if budget -= len(cell) + 3; budget <= 0 || sub.buf.cut {
				full = true // writing these rows will fill the output
				return false
			}
			for ; span > 1; span-- {
				row = append(row, "")
			}
			return true
		})
		if stopped {
			w.guard.stop, w.guard.left = true, 0
			return
		}
		if len(row) > 0 {
			cols = max(cols, len(row))
			cells = append(cells, row)
		}
		if full {
			break
		}
	}
	w.wideTable = w.wideTable || sub.wideTable
	w.guard.left = sub.guard.left
	if len(cells) == 0 {
		return
	}
	pad := len(cells)*cols <= maxTableCells
	w.breakLines(2)
	for i, row := range cells {
		if w.buf.full() {
			return
		}
		if i > 0 {
			w.buf.WriteByte('\n')
			w.atLineStart = true
		}
		w.raw("|")
		width := cols
		if !pad && i > 0 {
			width = len(row)
		}
		for j := 0; j < width; j++ {
			cell := ""
			if j < len(row) {
				cell = row[j]
			}
			w.buf.WriteByte(' ')
			w.buf.WriteString(cell)
			if cell != "" {
				w.buf.WriteByte(' ')
			}
			w.buf.WriteByte('|')
		}
		if i == 0 {
			w.buf.WriteByte('\n')
			w.buf.WriteString(w.indent)
			w.buf.WriteByte('|')
			for j := 0; j < cols; j++ {
				w.buf.WriteString("---|")
			}
		}
	}
	if c := findChild(n, atom.Caption); c != nil {
		w.breakLines(2)
		w.children(c, depth+1)
	}
	w.breakLines(2)
}
