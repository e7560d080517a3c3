// Package ctxio is a reader that gives up when its context ends, for a
// read that may wait on a person (a terminal's answer) while the call it
// serves must end on ^C.
//
//	ta := &broker.TerminalApprover{In: ctxio.NewReader(ctx, os.Stdin), Out: os.Stderr}
package ctxio

import (
	"context"
	"io"
)

// Reader is a reader that gives up when ctx is done: Read returns ctx's
// error at once instead of waiting for r. A read it gave up on finishes
// in the background and its bytes are dropped, so use it only where
// nothing reads r afterwards (the process is exiting, or the reader is
// abandoned).
type Reader struct {
	ctx context.Context
	r   io.Reader
}

// NewReader returns a [Reader] of r that gives up when ctx is done.
func NewReader(ctx context.Context, r io.Reader) Reader { return Reader{ctx: ctx, r: r} }

// Read reads from r, or returns ctx's error once ctx is done.
func (c Reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		buf := make([]byte, len(p))
		n, err := c.r.Read(buf)
		done <- result{buf[:n], err}
	}()
	select {
	case r := <-done:
		return copy(p, r.b), r.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}
