package content

import (
	"bytes"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What the Markdown writer (markdown.go) and the text writer (text.go)
// share: their output buffers, how a node enters their walk, and how text
// splits into words. Each writer keeps its own switch over elements; their
// rules differ in nearly every case.

var textBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuf returns buf to textBufPool unless it grew past 1 MiB.
func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		textBufPool.Put(buf)
	}
}

// maxTextDepth bounds recursion; parsed trees are at most ~512 deep.
const maxTextDepth = 1024

// nodeKind says what a writer does with a node of the tree it renders.
type nodeKind uint8

const (
	skipNode      nodeKind = iota // nothing: comments, doctypes, removed or too deep elements, <head>
	textNode                      // write its Data as text
	containerNode                 // a document: walk its children
	elementNode                   // an element to render by the writer's own rules
)

// kindOf classifies n, at depth in the walk, for a writer's node method.
func kindOf(n *html.Node, depth int) nodeKind {
	switch n.Type {
	case html.TextNode:
		return textNode
	case html.DocumentNode:
		return containerNode
	case html.ElementNode:
		if depth > maxTextDepth || removedTag[n.DataAtom] || n.DataAtom == atom.Head {
			return skipNode
		}
		return elementNode
	}
	return skipNode
}

// nextWord splits the first word off s: it returns the word (empty if s
// holds only white space), whether white space came before it, and the
// rest of s after the word. White space is ASCII space, tab, CR, LF and
// FF; with unicodeSpace, also every other Unicode space but U+00A0 (the
// no-break space stays part of the word).
func nextWord(s string, unicodeSpace bool) (word string, spaceBefore bool, rest string) {
	start := -1
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf && unicodeSpace {
			c, size = utf8.DecodeRuneInString(s[i:])
		}
		space := c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' ||
			(unicodeSpace && c > utf8.RuneSelf && c != '\u00a0' && unicode.IsSpace(c))
		switch {
		case space && start >= 0:
			return s[start:i], spaceBefore, s[i:]
		case space:
			spaceBefore = true
		case start < 0:
			start = i
		}
		i += size
	}
	if start < 0 {
		return "", spaceBefore, ""
	}
	return s[start:], spaceBefore, ""
}
