package search

import (
	"errors"
	"io"
	"sync"

	"github.com/ocfetch/ocfetch/internal/boundedread"
)

// errTooLarge: the answer is longer than the cap.
var errTooLarge = errors.New("answer larger than the cap")

// readBody reads at most limit bytes of r into buf's storage (growing it
// as internal/boundedread does); more is errTooLarge (a cut JSON document
// is no answer). declared is the answer's Content-Length (-1 when
// unknown): it sizes the buffer only, never the bound.
func readBody(buf []byte, r io.Reader, declared, limit int64) ([]byte, error) {
	b, over, err := boundedread.Append(buf[:0], r, declared, limit)
	switch {
	case err != nil:
		return nil, err
	case over:
		return nil, errTooLarge
	}
	return b, nil
}

// maxPooledAnswer is the largest buffer answerBufs keeps: a rare large
// answer does not pin its memory.
const maxPooledAnswer = 64 << 10

// answerBufs recycles the buffers answers are read into. A buffer is free
// again once its call has rendered its results: the texts kept are
// copied into the call's content ([present]) or out by Parse, and nothing
// a call returns points into its answer.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// answerBuf returns a buffer from answerBufs, for readBody.
func answerBuf() *[]byte { return answerBufs.Get().(*[]byte) }

// releaseAnswerBuf returns *b to answerBufs unless it grew too large.
func releaseAnswerBuf(b *[]byte) {
	if cap(*b) <= maxPooledAnswer {
		*b = (*b)[:0]
		answerBufs.Put(b)
	}
}
