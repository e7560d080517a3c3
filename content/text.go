package content

import (
	"context"
	"strings"

	"golang.org/x/net/html"
)

// renderText renders the tree under n as readable plain text (render has
// the walk and its bounds): blocks on their own lines (paragraphs,
// headings, lists and tables separated by a blank line), "- " and "1. "
// list markers indented by nesting, table cells separated by " | ", <pre>
// kept verbatim, white space elsewhere collapsed, no markup. Link targets
// and images without alt text are not shown.
func renderText(ctx context.Context, n *html.Node, limit int) (string, []string) {
	return render(ctx, n, limit, false)
}

// preformatted writes a <pre> as a block of verbatim text.
func (w *writer) preformatted(n *html.Node, depth int) {
	w.breakLines(2)
	w.pre++
	w.children(n, depth)
	w.pre--
	w.breakLines(2)
}

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
