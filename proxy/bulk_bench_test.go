package proxy

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
)

// BenchmarkTunnelBulk moves 32 MiB through one CONNECT tunnel to a
// loopback sink per iteration (and reads the sink's count back): past
// spliceAfter the proxy splices, through a pipe of the tunnel's own on
// Linux, so this measures the bulk path. Compare CPU with
// `go test -bench TunnelBulk -benchtime 20x -cpuprofile` or time(1).
func BenchmarkTunnelBulk(b *testing.B) {
	w := newWorld(b, worldOpts{profile: risk.Permissive})
	ln, port := w.upstream("127.0.0.1")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				n, _ := io.Copy(io.Discard, struct{ io.Reader }{c}) // no splice of the benchmark's own
				io.WriteString(c, strconv.FormatInt(n, 10))
			}()
		}
	}()
	const size = 32 << 20
	chunk := bytes.Repeat([]byte("b"), 256<<10)
	target := "127.0.0.1:" + strconv.Itoa(port)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(c, connectHead(target))
		br := newReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("CONNECT: %v %v", resp, err)
		}
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
		c.(*net.TCPConn).CloseWrite()
		got, _ := io.ReadAll(br)
		c.Close()
		if string(got) != strconv.Itoa(size) {
			b.Fatalf("the sink counted %q bytes; want %d", got, size)
		}
	}
}
