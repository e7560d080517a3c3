package search

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// scratch is one parse's reusable storage: the raw hits (whose values
// alias the answer's body) and the buffer [viewTexts] decodes texts into.
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

// release forgets the answer (the raw hits alias its body) and returns sc
// to scratches unless it grew too large. Nothing [viewTexts] made may be
// used after it.
func (sc *scratch) release() {
	clear(sc.raw[:cap(sc.raw)])
	sc.raw, sc.buf = sc.raw[:0], sc.buf[:0]
	if cap(sc.raw) <= maxPooledHits && cap(sc.buf) <= maxPooledText {
		scratches.Put(sc)
	}
}

// textBytes bounds the decoded texts of raw: a text is never longer
// than its literal.
func textBytes(raw []rawHit) int {
	n := 0
	for i := range raw {
		n += len(raw[i].title.Raw) + len(raw[i].url.Raw) + len(raw[i].snippet.Raw)
	}
	return n
}

// eachText calls f with each read text of sc.raw, in order, and the field
// of hits that holds it.
func eachText(sc *scratch, hits []Hit, f func(v strictjson.Value, field *string)) {
	for i := range sc.raw {
		f(sc.raw[i].title, &hits[i].Title)
		f(sc.raw[i].url, &hits[i].URL)
		f(sc.raw[i].snippet, &hits[i].Snippet)
	}
}

// ownTexts returns sc.raw's hits with their texts decoded into one string
// of their own (one allocation, however many texts): they may be kept
// as long as needed. The answer's other bytes are not copied.
func ownTexts(sc *scratch) []Hit {
	hits := make([]Hit, len(sc.raw))
	var b strings.Builder
	b.Grow(textBytes(sc.raw))
	eachText(sc, hits, func(v strictjson.Value, field *string) {
		at := b.Len()
		sc.buf = v.AppendText(sc.buf[:0])
		b.Write(sc.buf)
		*field = b.String()[at:] // a strings.Builder never changes what it holds
	})
	return hits
}

// viewTexts returns sc.raw's hits with their texts decoded into sc.buf
// and each a view of it, copying nothing else: they are valid only until
// sc is released. The caller makes every text it keeps its own first —
// [render] with repoint does, for the hits [clean] keeps — and clears the
// others.
func viewTexts(sc *scratch) []Hit {
	hits := make([]Hit, len(sc.raw))
	if n := textBytes(sc.raw); cap(sc.buf) < n {
		sc.buf = make([]byte, 0, n)
	}
	sc.buf = sc.buf[:0]
	eachText(sc, hits, func(v strictjson.Value, field *string) {
		at := len(sc.buf)
		// sc.buf has room for every text: appending never moves it.
		if sc.buf = v.AppendText(sc.buf); len(sc.buf) > at {
			*field = unsafe.String(&sc.buf[at], len(sc.buf)-at)
		}
	})
	return hits
}

// present is a call's parse, clean and render for sh's answer body: it
// fills out's results and returns the text a model reads, as
// Parse, clean and Render would, with the texts copied once, into that
// text. Nothing it returns points into body or its scratch.
func present(sh *answerShape, body []byte, count int, out *Output) (string, error) {
	sc := getScratch()
	defer sc.release()
	var err error
	if sc.raw, err = sh.parse(body, sc.raw[:0]); err != nil {
		return "", err
	}
	hits := viewTexts(sc)
	out.Results, out.Dropped = clean(hits, count)
	clear(hits[len(out.Results):]) // views of sc, dropped
	out.Count = len(out.Results)
	return render(*out, true), nil
}
