package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestThousandTunnels opens 1,000 tunnels at once through the proxy to a
// loopback echo server, exchanges a message on each, and checks that every
// one succeeded within a bounded time and that, once they are closed, the
// proxy holds no connection and no goroutine for them.
func TestThousandTunnels(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 tunnels: skipped in -short mode")
	}
	const n = 1000
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) { o.MaxConcurrent = n + 100 }})
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := echo.Addr().(*net.TCPAddr).Port
	var echoWG sync.WaitGroup
	echoWG.Add(1)
	go func() {
		defer echoWG.Done()
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			echoWG.Add(1)
			go func() {
				defer echoWG.Done()
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	defer func() { echo.Close(); echoWG.Wait() }()
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, "127.0.0.1", port)
	baseline := runtime.NumGoroutine()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	target := "127.0.0.1:" + strconv.Itoa(port)
	errs := make(chan error, n)
	ready := make(chan struct{})
	var opened, all sync.WaitGroup
	opened.Add(n)
	all.Add(n)
	for i := range n {
		go func() {
			defer all.Done()
			errs <- func() error {
				var d net.Dialer
				c, err := d.DialContext(ctx, "tcp", w.addr)
				if err != nil {
					opened.Done()
					return err
				}
				defer c.Close()
				c.SetDeadline(deadline)
				io.WriteString(c, connectHead(target))
				br := newReader(c)
				resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
				opened.Done()
				if err != nil {
					return err
				}
				if resp.StatusCode != 200 {
					return fmt.Errorf("CONNECT: %s (%s)", resp.Status, resp.Header.Get(ReasonHeader))
				}
				// Hold every tunnel open until all are: 1,000 at once.
				<-ready
				msg := fmt.Sprintf("tunnel %04d", i)
				io.WriteString(c, msg)
				got := make([]byte, len(msg))
				if _, err := io.ReadFull(br, got); err != nil {
					return err
				}
				if string(got) != msg {
					return fmt.Errorf("echo: got %q; want %q", got, msg)
				}
				return nil
			}()
		}()
	}
	opened.Wait()
	if got := len(w.srv.sem); got != n {
		t.Errorf("tunnels open at once: got %d; want %d", got, n)
	}
	close(ready)
	all.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed < 5 {
				t.Error(err)
			}
			failed++
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d tunnels failed", failed, n)
	}
	waitFor(t, func() bool { return len(w.srv.sem) == 0 })
	w.srv.mu.Lock()
	conns := len(w.srv.conns)
	w.srv.mu.Unlock()
	if conns != 0 {
		t.Errorf("connections tracked after all tunnels closed: got %d; want 0", conns)
	}
	// Every tunnel's goroutines have exited: the count is back near the
	// baseline (the echo server's handlers end a moment later).
	waitFor(t, func() bool { return runtime.NumGoroutine() <= baseline+10 })
	if es := w.waitAudit(n); len(es) != n {
		t.Errorf("audit lines: got %d; want %d", len(es), n)
	}
}
