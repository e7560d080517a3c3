package search

import (
	"sync"
	"unsafe"
)

// scratch is one parse's reusable storage: the raw hits and the buffer
// their texts are decoded into.
type scratch struct {
	raw []rawHit
	buf []byte
	// failed counts the entries of the answer's failed list
	// ([answerShape].failed), if it has one.
	failed int
}

// Bounds of what scratches keeps: a rare large answer does not pin its
// memory.
const (
	maxPooledHits = 256
	maxPooledText = 64 << 10
)

var scratches = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratches.Get().(*scratch) }

// release returns sc to scratches unless it grew too large. Nothing cut
// from a view of sc.buf ([viewOf]) may be used after it.
func (sc *scratch) release() {
	sc.raw, sc.buf = sc.raw[:0], sc.buf[:0]
	if cap(sc.raw) <= maxPooledHits && cap(sc.buf) <= maxPooledText {
		scratches.Put(sc)
	}
}

// hits returns sc.raw's hits with their texts cut from body (the
// answer's, as a string) and buf (sc.buf as a string). Each is a copy
// (the hits may then be kept; Parse copies sc.buf, every text in it,
// once) or a view, [viewOf].
func (sc *scratch) hits(body, buf string) []Hit {
	cut := func(sp span) string {
		if sp.inBuf {
			return buf[sp.from:sp.to]
		}
		return body[sp.from:sp.to]
	}
	hits := make([]Hit, len(sc.raw))
	for i, r := range sc.raw {
		hits[i] = Hit{Title: cut(r.title), URL: cut(r.url), Snippet: cut(r.snippet)}
	}
	return hits
}

// viewOf returns b as a string without copying it: the strings cut from
// it are valid only while b is not written again (a pooled buffer: until
// it is released). The caller makes every one it keeps its own first —
// [render] with repoint does, for the hits [clean] keeps — and clears
// the others.
func viewOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// present is a call's parse, clean and render for sh's answer body: it
// fills out's results and returns the text a model reads, as Parse,
// clean and Render would, with each text kept copied once, from body (or
// from the scratch, if it had escapes to decode) into that text. Nothing
// it returns points into body or its scratch.
func present(sh *answerShape, body []byte, count int, out *Output) (string, error) {
	sc := getScratch()
	defer sc.release()
	if err := sh.parse(body, sc, true); err != nil {
		return "", err
	}
	hits := sc.hits(viewOf(body), viewOf(sc.buf))
	out.Results, out.Dropped = clean(hits, count)
	clear(hits[len(out.Results):]) // views of sc, dropped
	out.Count = len(out.Results)
	out.Unanswered = sc.failed
	return render(*out, true), nil
}
