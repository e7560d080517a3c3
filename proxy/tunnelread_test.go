package proxy

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
)

// TestReadPooled: one read as net.Conn.Read reads (the bytes, io.EOF at
// the end, the deadline's error, a closed connection's error), on a TCP
// socket and on a conn that is not one (net.Pipe), and every buffer it
// took is either returned to the caller or back in the pool.
func TestReadPooled(t *testing.T) {
	pipe := func(t *testing.T) (net.Conn, net.Conn) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	}
	for _, conns := range []struct {
		name   string
		pair   func(*testing.T) (net.Conn, net.Conn)
		closed error // what a read of a closed conn returns
	}{
		{"tcp", func(t *testing.T) (net.Conn, net.Conn) { return tcpPair(t) }, net.ErrClosed},
		{"pipe", pipe, io.ErrClosedPipe},
	} {
		t.Run(conns.name+"/data", func(t *testing.T) {
			src, peer := conns.pair(t)
			go peer.Write([]byte("hello"))
			src.SetReadDeadline(time.Now().Add(5 * time.Second))
			bp, n, err := readPooled(src)
			if bp == nil {
				t.Fatalf("got no buffer (%v); want one holding \"hello\"", err)
			}
			defer putBuffer(bp)
			if err != nil || string((*bp)[:n]) != "hello" {
				t.Fatalf("got %q, %v; want \"hello\", nil", (*bp)[:n], err)
			}
		})
		t.Run(conns.name+"/eof", func(t *testing.T) {
			src, peer := conns.pair(t)
			peer.Close()
			src.SetReadDeadline(time.Now().Add(5 * time.Second))
			bp, n, err := readPooled(src)
			if bp != nil {
				defer putBuffer(bp)
			}
			if n != 0 || err != io.EOF {
				t.Fatalf("got %d bytes, %v; want 0, io.EOF", n, err)
			}
		})
		t.Run(conns.name+"/deadline", func(t *testing.T) {
			src, _ := conns.pair(t)
			before := buffersOut.Load()
			src.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			bp, n, err := readPooled(src)
			if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("got %d bytes, %v; want 0, the deadline's error", n, err)
			}
			if bp != nil {
				putBuffer(bp)
			}
			if got := buffersOut.Load(); got != before {
				t.Errorf("buffers out after the read: %d; want %d", got, before)
			}
		})
		t.Run(conns.name+"/closed", func(t *testing.T) {
			src, _ := conns.pair(t)
			src.Close()
			bp, n, err := readPooled(src)
			if bp != nil {
				defer putBuffer(bp)
			}
			if n != 0 || !errors.Is(err, conns.closed) {
				t.Fatalf("got %d bytes, %v; want 0, %v", n, err, conns.closed)
			}
		})
	}
}

// TestQuietTunnelHoldsNoBuffer: on Unix a tunnel waiting for bytes in
// both directions holds none of the proxy's 32 KiB copy buffers (a proxy
// with many kept-alive TLS tunnels keeps no memory for them), and the
// tunnel carries the next bytes as before.
func TestQuietTunnelHoldsNoBuffer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the socket's readiness is waited for on Unix only")
	}
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	idle := buffersOut.Load() // none, unless another test leaked one
	ln, port := w.upstream("127.0.0.1")
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, connectHead("127.0.0.1:"+strconv.Itoa(port)))
	br := newReader(c)
	if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 200 Connection established\r\n" {
		t.Fatalf("CONNECT: got %q, %v", line, err)
	}
	br.ReadString('\n')
	echo := func(msg string) {
		t.Helper()
		io.WriteString(c, msg)
		b := make([]byte, len(msg))
		if _, err := io.ReadFull(br, b); err != nil || string(b) != msg {
			t.Fatalf("through the tunnel: got %q, %v; want %q", b, err, msg)
		}
	}
	echo("ping")
	waitFor(t, func() bool { return buffersOut.Load() == idle })
	echo("pong, after a quiet while")
	waitFor(t, func() bool { return buffersOut.Load() == idle })
	c.Close()
	if es := w.waitAudit(1); len(es) != 1 || es[0].BytesUp != 29 || es[0].BytesDown != 29 {
		t.Errorf("audit: got %+v; want one line, 29 bytes each way", es)
	}
}
