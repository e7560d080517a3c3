package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
)

// TestEarlyAnswerKeepsTheBodyReader: an upstream that answers a POST
// before it has read the body, and reads the body afterwards, gets every
// byte of it intact, while other connections come and go through the
// proxy meanwhile. The forwarded body reads through the client
// connection's buffered reader after the exchange has ended, so that
// reader must not be recycled for another connection (clientConn.release;
// under -race a recycled reader is also a reported race).
func TestEarlyAnswerKeepsTheBodyReader(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	ln, port := w.upstream("localhost")
	target := "localhost:" + strconv.Itoa(port)
	body := bytes.Repeat([]byte("0123456789abcdef"), 64<<10/16) // 64 KiB, past every buffer

	got := make(chan []byte, 1)
	release := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				if req.Method != http.MethodPost {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
					return
				}
				// Answer first, keep the connection, read the body later.
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nearly")
				<-release
				b, _ := io.ReadAll(req.Body)
				got <- b
			}(c)
		}
	}()

	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	head := "POST http://" + target + "/upload HTTP/1.1\r\nHost: " + target + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	// The head and the first 8 KiB now, the rest once answered.
	io.WriteString(c, head)
	c.Write(body[:8<<10])
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	early, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(early) != "early" {
		t.Fatalf("POST: got %d %q; want 200 \"early\"", resp.StatusCode, early)
	}

	// Other connections take buffers from the pools meanwhile.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r, _ := w.raw("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n")
				if r.StatusCode != 200 {
					t.Errorf("GET meanwhile: %d", r.StatusCode)
				}
			}
		}()
	}
	go c.Write(body[8<<10:])
	close(release)
	wg.Wait()
	select {
	case b := <-got:
		// The proxy ends the exchange once the answer is written, so the
		// upstream may see the body cut short, never altered.
		if !bytes.HasPrefix(body, b) || len(b) < 8<<10 {
			t.Errorf("upstream read %d bytes of the body, not a prefix of the %d sent (or less than the first 8 KiB)", len(b), len(body))
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the upstream never finished reading the body")
	}
}
