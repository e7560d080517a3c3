package content

import "strings"

// lineLayout is the line state both writers share (markdown.go, text.go):
// the line breaks and space owed before the next text, the line prefix of
// nested lists, quotes and definitions, and whether anything was written.
// Breaks and spaces are owed, not written, so that a run of block ends
// becomes one blank line and no line ends in space; flush pays them just
// before the next text.
type lineLayout struct {
	buf         *outBuf
	newlines    int    // line breaks owed before the next text (0–2)
	space       bool   // a space is owed before the next text
	glue        bool   // the next text follows an opening delimiter: no space
	atLineStart bool   // nothing written on the current line yet
	afterBullet bool   // a list bullet was just written: owed breaks wait
	indent      string // written at the start of each line ("  ", "> ")
	inline      int    // >0 in headings, table cells, links: breaks become spaces
	wroteAny    bool   // anything was written
	flattened   bool   // nesting deeper than maxIndent was flattened
}

// breakLines asks for n line breaks (1: new line, 2: blank line) before
// the next text; inline, a space instead.
func (l *lineLayout) breakLines(n int) {
	if l.inline > 0 {
		if l.wroteAny {
			l.space = true
		}
		return
	}
	if l.afterBullet {
		return
	}
	if l.wroteAny && n > l.newlines {
		l.newlines = n
	}
}

// flush writes owed line breaks (a blank line keeps the prefix's
// non-space part, so a quote stays a quote) and the line prefix, or an
// owed space. The caller then writes its text and clears atLineStart.
func (l *lineLayout) flush() {
	if l.newlines > 0 {
		if !l.atLineStart {
			l.buf.WriteByte('\n')
		}
		if l.newlines > 1 {
			l.buf.WriteString(strings.TrimRight(l.indent, " "))
			l.buf.WriteByte('\n')
		}
		l.newlines, l.space, l.atLineStart = 0, false, true
	}
	if l.atLineStart {
		l.buf.WriteString(l.indent)
		l.space = false
	} else if l.space && !l.glue && !l.afterBullet {
		l.buf.WriteByte(' ')
	}
	l.space, l.glue = false, false
}

// indentBy extends the line prefix by add, up to maxIndent.
func (l *lineLayout) indentBy(add string) {
	var flat bool
	l.indent, flat = addIndent(l.indent, add)
	l.flattened = l.flattened || flat
}
