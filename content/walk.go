package content

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What the writer's walk (write.go) rests on: its output buffers and
// bounds, how a node enters the walk, and how text splits into words.

var textBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuf returns buf to textBufPool unless it grew past 1 MiB.
func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		textBufPool.Put(buf)
	}
}

// Output bounds. A hostile body of at most 5 MiB must not become
// gigabytes of text (nested indentation, padded table cells, long links
// repeated), so every writer has a byte budget and stops there.
const (
	// maxOutput caps any one conversion's output.
	maxOutput = 16 << 20
	// outputPerByte and outputSlack: below the cap, the budget is
	// outputSlack + outputPerByte × the body size. Real pages convert to
	// well under their own size (markup is dropped); pretty-printed JSON
	// and pages of many short relative links grow, rarely past 4×.
	outputPerByte = 8
	outputSlack   = 64 << 10
	// ctxCheckEvery: walks over the tree check ctx once per this many nodes.
	ctxCheckEvery = 1024
	// maxIndent caps the line prefix of nested lists, quotes and
	// definitions (about 20 list levels, 32 quote levels): deeper nesting
	// is written at that depth, so a line never repeats more than this.
	maxIndent = 64
)

// outputBudget is the most a conversion of a body of n bytes may write:
// min(maxOutput, outputSlack + outputPerByte×n).
func outputBudget(n int) int {
	return min(maxOutput, outputSlack+outputPerByte*n)
}

// flattenedNote is the note for nesting written at maxIndent.
var flattenedNote = fmt.Sprintf("lists and quotes nested more than %d columns deep are shown at that depth", maxIndent)

// cutNote is the note for output stopped at its budget.
func cutNote(n int) string {
	return fmt.Sprintf("content cut at %d bytes of output", n)
}

// outBuf is a writer's output buffer with a byte budget. Writes go
// straight to the bytes.Buffer (the writers' hot path stays as fast as
// before); the walk checks full() before each node and in the loops that
// write a lot for one node (lines of a <pre>, rows of a table), so the
// buffer passes its limit by at most one node's output, and finish cuts
// it back to the limit on a rune boundary. cut says something was lost.
type outBuf struct {
	*bytes.Buffer
	limit int
	cut   bool
}

func newOutBuf(limit int) outBuf {
	b := textBufPool.Get().(*bytes.Buffer)
	b.Reset()
	return outBuf{Buffer: b, limit: limit}
}

func (o *outBuf) release() { putBuf(o.Buffer) }

// full reports (and records in cut) that the budget is spent: the walk
// must stop.
func (o *outBuf) full() bool {
	if o.Len() >= o.limit {
		o.cut = true
	}
	return o.cut
}

func (o *outBuf) reset(limit int) { o.Buffer.Reset(); o.limit, o.cut = limit, false }
func (o *outBuf) remaining() int  { return max(0, o.limit-o.Len()) }

// finish cuts the output back to the limit, on a rune boundary, and
// returns it.
func (o *outBuf) finish() []byte {
	if b := o.Bytes(); len(b) > o.limit {
		k := max(0, o.limit)
		for k > 0 && !utf8.RuneStart(b[k]) {
			k--
		}
		o.Truncate(k)
		o.cut = true
	}
	return o.Bytes()
}

// walkGuard stops a walk when ctx is done (checked every ctxCheckEvery
// nodes) or its output is full.
type walkGuard struct {
	ctx  context.Context
	left int  // nodes until the next ctx check
	stop bool // ctx done or output full: write nothing more
}

// check is the slow path of the test each writer makes before a node:
//
//	if g.left--; g.left <= 0 || out.Len() >= out.limit { if g.check(out) { return } }
//
// It checks ctx every ctxCheckEvery nodes and whether the output is full,
// and reports whether the walk must stop. Once stop is set, left stays 0
// so every node takes this path.
func (g *walkGuard) check(out *outBuf) bool {
	if g.stop {
		g.left = 0
		return true
	}
	if g.left <= 0 {
		g.left = ctxCheckEvery
		if g.ctx.Err() != nil {
			g.stop = true
		}
	}
	if out.full() {
		g.stop = true
	}
	if g.stop {
		g.left = 0
	}
	return g.stop
}

// addIndent is indent extended by add, unless that would pass maxIndent;
// then indent itself and true (the nesting was flattened).
func addIndent(indent, add string) (string, bool) {
	if len(indent)+len(add) > maxIndent {
		return indent, true
	}
	return indent + add, false
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
