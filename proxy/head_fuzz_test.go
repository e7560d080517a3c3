package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"testing"
)

// countingSource counts what readHead pulls from the connection.
type countingSource struct {
	r *bytes.Reader
	n int
}

func (c *countingSource) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzReadHead: a client's request head through the head limit. Never
// more than the limit and one buffer is read from the connection, a head
// that fits in the limit is never refused as too large, and the limit is
// lifted afterwards (the body and the tunnel are not cut by it).
func FuzzReadHead(f *testing.F) {
	for _, s := range []string{
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
		"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nX-Long: " + string(bytes.Repeat([]byte("a"), 300)) + "\r\n\r\nbody",
		"GET http://example.com/ HTTP/1.1\r\n" + string(bytes.Repeat([]byte("X: y\r\n"), 100)),
		"\r\n\r\nGET / HTTP/1.0\r\n\r\n", "", "G",
	} {
		f.Add([]byte(s), uint16(256))
	}
	f.Fuzz(func(t *testing.T, head []byte, limit16 uint16) {
		limit := int(limit16%4096) + 1
		src := &countingSource{r: bytes.NewReader(head)}
		lim := &headLimitReader{r: src}
		br := bufio.NewReaderSize(lim, 64)
		_, err := readHead(br, lim, limit)
		if src.n > limit+br.Size() {
			t.Fatalf("readHead(limit %d) read %d bytes from the connection", limit, src.n)
		}
		if errors.Is(err, errHeadTooLarge) && len(head) <= limit {
			t.Fatalf("readHead(limit %d): a %d-byte input refused as too large", limit, len(head))
		}
		if lim.n != math.MaxInt64 {
			t.Fatalf("readHead: the limit was left at %d", lim.n)
		}
	})
}
