package search

import (
	"errors"
	"io"
	"sync"
)

// errTooLarge: the answer is longer than the cap.
var errTooLarge = errors.New("answer larger than the cap")

// readBody reads at most limit bytes of r into buf's storage (growing it
// as needed); more is errTooLarge (a cut JSON document is no answer).
// declared is the answer's Content-Length (-1 when unknown): it sizes the
// buffer only, never the bound.
func readBody(buf []byte, r io.Reader, declared, limit int64) ([]byte, error) {
	// One buffer of the declared length (and a byte to see more coming)
	// when it is within the cap, instead of io.ReadAll's doublings from
	// 512 bytes; an undeclared or over-long length starts small and grows.
	b := buf[:0]
	if declared >= 0 && declared < limit && int64(cap(b)) <= declared {
		b = make([]byte, 0, declared+1)
	} else if cap(b) == 0 {
		b = make([]byte, 0, 512)
	}
	lr := io.LimitedReader{R: r, N: limit + 1}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// maxPooledAnswer is the largest buffer answerBufs keeps: a rare large
// answer does not pin its memory.
const maxPooledAnswer = 64 << 10

// answerBufs recycles the buffers answers are read into. A buffer is free
// again once its call has parsed it: the parse copies out every string
// it keeps, and nothing a call returns points into its answer.
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
