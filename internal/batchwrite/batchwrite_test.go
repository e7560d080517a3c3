package batchwrite_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/batchwrite"
)

// counter records every write it is given.
type counter struct {
	writes []int
	b      bytes.Buffer
}

func (c *counter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, len(p))
	return c.b.Write(p)
}

// TestGathers: small writes reach w as one write at Flush; a write that
// does not fit goes after what is gathered, at once; the bytes are those
// written, in order.
func TestGathers(t *testing.T) {
	var c counter
	bw := batchwrite.New(&c, 16)
	io.WriteString(bw, "status: 200\n") // 12 bytes
	io.WriteString(bw, "ok\n")          // 15
	if len(c.writes) != 0 {
		t.Fatalf("writes before Flush: %v; want none", c.writes)
	}
	long := strings.Repeat("x", 40)
	io.WriteString(bw, long)
	io.WriteString(bw, "end\n")
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := []int{15, 40, 4}; !equal(c.writes, want) {
		t.Errorf("writes = %v; want %v", c.writes, want)
	}
	if got, want := c.b.String(), "status: 200\nok\n"+long+"end\n"; got != want {
		t.Errorf("wrote %q; want %q", got, want)
	}
	if err := bw.Flush(); err != nil || len(c.writes) != 3 {
		t.Errorf("a second Flush = %v, %d writes; want nil and no write", err, len(c.writes))
	}
}

// short writes less than it is given, without an error.
type short struct{}

func (short) Write(p []byte) (int, error) { return len(p) / 2, nil }

// TestShortWrite: a short write at Flush is io.ErrShortWrite.
func TestShortWrite(t *testing.T) {
	bw := batchwrite.New(short{}, 16)
	io.WriteString(bw, "abcd")
	if err := bw.Flush(); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("Flush = %v; want io.ErrShortWrite", err)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
