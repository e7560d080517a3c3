package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
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

// TestShedLoad: 1,000 clients at once against a cap of 256, each sending
// one request to a slow origin, get only their response or the proxy's
// 503 too_many_connections — never a bare close or a reset — and once they
// are done, the proxy's connections, goroutines and descriptors return to
// near their baseline.
func TestShedLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 clients: skipped in -short mode")
	}
	const clients, limit = 1000, 256
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) { o.MaxConcurrent = limit }})
	release := make(chan struct{})
	origin := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		io.WriteString(rw, "ok")
	})}
	ln, port := w.upstream("localhost")
	go origin.Serve(ln)
	defer origin.Close()
	baseG, baseFD := runtime.NumGoroutine(), openFDs()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	head := "GET http://localhost:" + strconv.Itoa(port) + "/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
	type result struct {
		status int
		reason string
		err    error
	}
	results := make(chan result, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", w.addr)
			if err != nil {
				results <- result{err: err}
				return
			}
			defer c.Close()
			c.SetDeadline(deadline)
			if _, err := io.WriteString(c, head); err != nil {
				results <- result{err: err}
				return
			}
			resp, err := http.ReadResponse(newReader(c), nil)
			if err != nil {
				results <- result{err: err}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			results <- result{status: resp.StatusCode, reason: resp.Header.Get(ReasonHeader)}
		}()
	}
	// Hold the origin until the cap is full and the rest have been turned
	// away, then let the admitted requests finish.
	waitFor(t, func() bool { return len(w.srv.sem) == limit })
	go func() {
		for len(results) < clients-limit && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		close(release)
	}()
	wg.Wait()
	close(results)
	var ok, busy, failed int
	for r := range results {
		switch {
		case r.err == nil && r.status == 200:
			ok++
		case r.err == nil && r.status == 503 && r.reason == string(refusal.TooManyConnections):
			busy++
		default:
			if failed < 5 {
				t.Errorf("client got %d %q, %v; want 200 or 503 too_many_connections", r.status, r.reason, r.err)
			}
			failed++
		}
	}
	t.Logf("%d clients, cap %d: %d answered, %d turned away with 503, %d failed", clients, limit, ok, busy, failed)
	if failed > 0 || ok < limit || ok+busy != clients {
		t.Fatalf("got %d ok, %d busy, %d failed; want at least %d ok and the rest 503", ok, busy, failed, limit)
	}
	waitFor(t, func() bool { return len(w.srv.sem) == 0 && len(w.srv.refusers) == 0 })
	waitFor(t, func() bool {
		runtime.GC()
		// The transport may keep a few idle upstream connections (both
		// ends are in this process), bounded by MaxIdleConnsPerHost.
		return runtime.NumGoroutine() <= baseG+2*8+10 && (baseFD < 0 || openFDs() <= baseFD+2*8+10)
	})
}

// openFDs counts this process's open descriptors, or -1 where /proc is
// not available.
func openFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(es)
}
