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
// from [scratch.view] may be used after it.
func (sc *scratch) release() {
	sc.raw, sc.buf = sc.raw[:0], sc.buf[:0]
	if cap(sc.raw) <= maxPooledHits && cap(sc.buf) <= maxPooledText {
		scratches.Put(sc)
	}
}

// hits returns sc.raw's hits with their texts cut from text, which is
// sc.buf as a string: a copy of it (one allocation, however many texts;
// the hits may then be kept), or [scratch.view].
func (sc *scratch) hits(text string) []Hit {
	hits := make([]Hit, len(sc.raw))
	for i, r := range sc.raw {
		hits[i] = Hit{Title: text[r.title.from:r.title.to], URL: text[r.url.from:r.url.to], Snippet: text[r.snippet.from:r.snippet.to]}
	}
	return hits
}

// view returns sc.buf as a string without copying it: the strings cut
// from it are valid only until sc is released. The caller makes every
// one it keeps its own first — [render] with repoint does, for the hits
// [clean] keeps — and clears the others.
func (sc *scratch) view() string {
	if len(sc.buf) == 0 {
		return ""
	}
	return unsafe.String(&sc.buf[0], len(sc.buf))
}

// present is a call's parse, clean and render for sh's answer body: it
// fills out's results and returns the text a model reads, as
// Parse, clean and Render would, with the texts copied once, into that
// text. Nothing it returns points into body or its scratch.
func present(sh *answerShape, body []byte, count int, out *Output) (string, error) {
	sc := getScratch()
	defer sc.release()
	if err := sh.parse(body, sc); err != nil {
		return "", err
	}
	hits := sc.hits(sc.view())
	out.Results, out.Dropped = clean(hits, count)
	clear(hits[len(out.Results):]) // views of sc, dropped
	out.Count = len(out.Results)
	return render(*out, true), nil
}
