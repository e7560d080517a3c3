package boundedread

import (
	"bytes"
	"io"
	"testing"
)

// chunkReader returns body in reads whose sizes the fuzzer picks, and at
// times returns the last bytes together with io.EOF.
type chunkReader struct {
	body, sizes []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.body) == 0 {
		return 0, io.EOF
	}
	n := len(c.body)
	if len(c.sizes) > 0 {
		n = int(c.sizes[0])
		c.sizes = c.sizes[1:]
	}
	n = min(n, len(p), len(c.body))
	copy(p, c.body[:n])
	c.body = c.body[n:]
	if len(c.body) == 0 && n%2 == 1 {
		return n, io.EOF
	}
	return n, nil
}

// FuzzRead: a response body and the Content-Length its server declared
// (any int64 net/http accepts, a lie included). The result is the room,
// then the body cut at limit; over says whether more came; and the buffer
// never costs more than the room and 2×(limit+1), whatever was declared.
func FuzzRead(f *testing.F) {
	f.Add([]byte("hello"), []byte{1, 2}, int64(5), uint16(1000), uint8(0))
	f.Add([]byte("hello"), []byte{}, int64(-1), uint16(3), uint8(4))
	f.Add([]byte("hello world"), []byte{0, 3}, int64(2), uint16(8), uint8(0))
	f.Add([]byte("abc"), []byte{}, int64(1<<40), uint16(1000), uint8(0))
	f.Add([]byte(""), []byte{}, int64(0), uint16(0), uint8(1))
	f.Fuzz(func(t *testing.T, body, sizes []byte, declared int64, limit16 uint16, room8 uint8) {
		limit, room := int64(limit16), int(room8)
		for _, s := range sizes {
			if s == 0 {
				return // a reader that keeps returning 0, nil is not one net/http gives
			}
		}
		buf, over, err := Read(&chunkReader{body: body, sizes: sizes}, room, declared, limit)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		want := body[:min(int64(len(body)), limit)]
		if len(buf) < room || !bytes.Equal(buf[room:], want) {
			t.Fatalf("Read(%d bytes, declared %d, limit %d) = %d bytes", len(body), declared, limit, len(buf))
		}
		if over != (int64(len(body)) > limit) {
			t.Fatalf("Read(%d bytes, limit %d): over = %v", len(body), limit, over)
		}
		if int64(cap(buf)) > int64(room)+2*(limit+1) {
			t.Fatalf("Read(%d bytes, declared %d, limit %d): capacity %d", len(body), declared, limit, cap(buf))
		}
	})
}
