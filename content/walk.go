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

// outBuf is a writer's output buffer with a byte budget. A write that
// does not fit is cut at a rune boundary, and from then on every write is
// dropped (cut stays set, even after Truncate), so the output is a prefix
// of what an unbounded writer would produce.
type outBuf struct {
	b     *bytes.Buffer
	limit int // bytes still allowed in b in all; 0 once cut
	cut   bool
}

func newOutBuf(limit int) outBuf {
	b := textBufPool.Get().(*bytes.Buffer)
	b.Reset()
	return outBuf{b: b, limit: limit}
}

func (o *outBuf) release() { putBuf(o.b) }

func (o *outBuf) WriteString(s string) {
	if len(s) > o.limit-o.b.Len() {
		o.overflow(s)
		return
	}
	o.b.WriteString(s)
}

// WriteByte never fails; it returns an error only to have the
// io.ByteWriter signature.
func (o *outBuf) WriteByte(c byte) error {
	if o.b.Len() >= o.limit {
		o.overflow(string(c))
		return nil
	}
	return o.b.WriteByte(c)
}

// overflow writes what fits of s, ending on a rune boundary, and closes
// the buffer.
func (o *outBuf) overflow(s string) {
	if o.cut {
		return
	}
	k := max(0, o.limit-o.b.Len())
	if k < len(s) {
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		s = s[:k]
	}
	o.b.WriteString(s)
	o.cut, o.limit = true, 0
}

func (o *outBuf) Len() int        { return o.b.Len() }
func (o *outBuf) Bytes() []byte   { return o.b.Bytes() }
func (o *outBuf) String() string  { return o.b.String() }
func (o *outBuf) Truncate(n int)  { o.b.Truncate(n) }
func (o *outBuf) Reset(limit int) { o.b.Reset(); o.limit, o.cut = limit, false }
func (o *outBuf) remaining() int  { return max(0, o.limit-o.b.Len()) }

// walkGuard stops a walk when ctx is done (checked every ctxCheckEvery
// nodes) or its output is full.
type walkGuard struct {
	ctx   context.Context
	nodes int
	stop  bool // ctx done or output cut: write nothing more
}

// halt reports whether the walk must stop before the next node.
func (g *walkGuard) halt(out *outBuf) bool {
	if g.stop {
		return true
	}
	if out.cut {
		g.stop = true
		return true
	}
	if g.nodes++; g.nodes%ctxCheckEvery == 0 && g.ctx.Err() != nil {
		g.stop = true
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
