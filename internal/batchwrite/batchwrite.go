// Package batchwrite gathers small writes into one, so that a response
// printed line by line reaches a pipe or a terminal in one write(2), while
// a write too large to gather goes through at once instead of being copied
// through the buffer piece by piece.
//
//	bw := batchwrite.New(os.Stdout, 64<<10)
//	fmt.Fprintln(bw, "status: 200")
//	io.WriteString(bw, page) // written at once when it does not fit
//	err := bw.Flush()
package batchwrite

import "io"

// Writer gathers small writes into one, up to its buffer's capacity;
// a write larger than that goes to w at once (after what is gathered), so a
// long page is not copied through the buffer piece by piece. Nothing
// reaches w before a write that does not fit, or [Writer.Flush].
type Writer struct {
	w   io.Writer
	buf []byte
}

// New returns a [Writer] to w gathering up to size bytes.
func New(w io.Writer, size int) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, size)}
}

// Write gathers p, or writes what is gathered and then p when p does not
// fit.
func (b *Writer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) <= cap(b.buf) {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	if err := b.Flush(); err != nil {
		return 0, err
	}
	if len(p) >= cap(b.buf) {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes what is gathered.
func (b *Writer) Flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	n, err := b.w.Write(b.buf)
	if err == nil && n < len(b.buf) {
		err = io.ErrShortWrite
	}
	b.buf = b.buf[:0]
	return err
}
