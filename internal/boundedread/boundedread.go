// Package boundedread reads a response body into one buffer, at most a
// limit of bytes, sized from the length the sender declared: the one
// bounded read of fetch's pages and search's answers.
//
// The bound is the caller's limit, never the declared length: a
// Content-Length only sizes the first allocation (when it is within the
// limit), so a lying server costs nothing more than an honest one. At
// most limit+1 bytes are read, so an endless body or a compression bomb
// costs under 2×(limit+1) bytes of buffer: the buffer starts at the
// declared length + 1, or [FirstChunk] when none is declared, doubles up
// to [GrowLimit], and then grows once, to limit+1.
package boundedread

import "io"

// FirstChunk is the first buffer for a body of unknown length; it
// doubles up to GrowLimit, and then grows once, to the cap.
const (
	FirstChunk = 32 << 10
	GrowLimit  = 1 << 20
)

// Read reads r as [Append] does into a new buffer that starts with room
// zero bytes the caller fills later (fetch writes the head of its result
// there, in the same allocation).
func Read(r io.Reader, room int, declared, limit int64) (buf []byte, over bool, err error) {
	return Append(make([]byte, room, int64(room)+firstSize(declared, limit)), r, declared, limit)
}

// Append reads r into buf[len(buf):] (buf's bytes so far are kept, as a
// prefix) until EOF or until limit+1 bytes were read, and returns the
// buffer and whether more than limit bytes came: then the buffer holds
// the prefix and exactly limit bytes of the body. declared is the body's
// declared length (-1 when unknown); it sizes the buffer only. buf's free
// capacity is used first (a pooled buffer); when it runs out, the buffer
// grows as the package documentation says. On a read error the bytes
// read so far are returned with the error.
func Append(buf []byte, r io.Reader, declared, limit int64) ([]byte, bool, error) {
	max := limit + 1
	head := int64(len(buf))
	if free := int64(cap(buf)) - head; free == 0 || declared >= free && declared < limit {
		buf = grow(buf, head, firstSize(declared, limit))
	}
	for int64(len(buf))-head < max {
		if len(buf) == cap(buf) {
			next := (int64(cap(buf)) - head) * 2
			if next > GrowLimit {
				next = max // a body this long may well reach the cap: one last allocation
			}
			buf = grow(buf, head, min(next, max))
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), head+max)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, false, err
		}
	}
	if int64(len(buf))-head > limit {
		return buf[:head+limit], true, nil
	}
	return buf, false, nil
}

// firstSize is the first buffer's size for a body: its declared length + 1
// when that is within the cap, else FirstChunk, never over limit+1. The
// declared length is cut to the cap before the + 1: a server may declare
// any int64 (net/http accepts a Content-Length up to 1<<63 - 1), and
// that + 1 would overflow.
func firstSize(declared, limit int64) int64 {
	size := int64(FirstChunk)
	if declared >= 0 {
		size = min(declared, limit) + 1
	}
	return min(size, limit+1)
}

// grow returns buf with room for size bytes after its head-byte prefix,
// its contents copied.
func grow(buf []byte, head, size int64) []byte {
	nb := make([]byte, len(buf), head+size)
	copy(nb, buf)
	return nb
}
