package content

import "strings"

// The text renderer of the one walk (write.go): readable plain text,
// blocks on their own lines (paragraphs, headings, lists and tables
// separated by a blank line), "- " and "1. " list markers indented by
// nesting, table cells separated by " | ", <pre> kept verbatim, white
// space elsewhere collapsed, no markup. Link targets and images without
// alt text are not shown.

// preText writes preformatted text, keeping its line breaks and indenting
// each line with the current indent.
func (w *writer) preText(s string) {
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
