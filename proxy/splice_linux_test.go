//go:build linux

package proxy

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSplicerKeepsBytesAcrossDeadlines: bytes a write deadline leaves in
// the splicer's pipe are written by the next call, none lost or repeated;
// the end of the source is reported; close releases the pipe.
func TestSplicerKeepsBytesAcrossDeadlines(t *testing.T) {
	in, src := tcpPair(t)  // the test writes in; the splicer reads src
	dst, out := tcpPair(t) // the splicer writes dst; the test reads out
	want := make([]byte, 4<<20)
	rand.Read(want)
	go func() { in.Write(want); in.CloseWrite() }()

	// Small fixed socket buffers, which turn the kernel's autotuning off:
	// with it, dst's send buffer may grow to tcp_wmem's maximum (4 MiB by
	// default) and all of want fit in the buffers before the deadline,
	// which this test needs to expire part-way.
	if err := dst.SetWriteBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	if err := out.SetReadBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	sp := newSplicer()
	// Nobody reads out yet: the write deadline expires mid-transfer.
	dst.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	n, eof, ok, err := sp.splice(dst, src, len(want))
	if !ok || eof || !errors.Is(err, os.ErrDeadlineExceeded) || n >= int64(len(want)) {
		t.Fatalf("splice with a stalled reader = %d, eof %v, ok %v, %v; want a deadline part-way", n, eof, ok, err)
	}
	if sp.inPipe == 0 {
		t.Fatal("the deadline left nothing in the pipe; this test needs bytes there")
	}
	// The pipe is identified by its inode, not by a count of the process's
	// descriptors (another test's connections may close meanwhile).
	pipe := fdLink(sp.r)
	if !strings.HasPrefix(pipe, "pipe:") || fdLink(sp.w) != pipe {
		t.Fatalf("the splicer's descriptors are %q and %q; want the two ends of one pipe", pipe, fdLink(sp.w))
	}

	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(out); got <- b }()
	dst.SetWriteDeadline(time.Time{})
	total := n
	for !eof {
		n, eof, ok, err = sp.splice(dst, src, tunnelChunk)
		if !ok || err != nil {
			t.Fatalf("splice = %d, ok %v, %v", n, ok, err)
		}
		total += n
	}
	sp.close()
	dst.CloseWrite()
	if b := <-got; total != int64(len(want)) || !bytes.Equal(b, want) {
		t.Errorf("moved %d bytes, received %d (equal %v); want the %d bytes sent, in order", total, len(b), bytes.Equal(b, want), len(want))
	}
	if n := openLinks(pipe); n != 0 {
		t.Errorf("after close, %d descriptors still refer to the splicer's %s; want none", n, pipe)
	}
}

// fdLink is what /proc/self/fd/FD names ("pipe:[INODE]", "socket:[…]").
func fdLink(fd int) string {
	l, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return l
}

// openLinks counts this process's descriptors that refer to link.
func openLinks(link string) int {
	es, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range es {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l == link {
			n++
		}
	}
	return n
}
