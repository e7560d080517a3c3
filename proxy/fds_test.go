package proxy

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
)

// TestDescriptorsBackAfterHostilePeers: after 300 hostile peers (uploads
// and downloads past the splice threshold cut by a reset, tunnels reset
// as soon as they open, half-closed ones), the proxy's descriptors return
// to their baseline within seconds — without a garbage collection, which
// is switched off for the test: no descriptor may wait for one (the
// runtime's splice pipe pool used to keep 60-odd pipes until it ran).
func TestDescriptorsBackAfterHostilePeers(t *testing.T) {
	if openFDs() < 0 {
		t.Skip("no /proc/self/fd to count descriptors")
	}
	const peers, parallel = 300, 300
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) { o.MaxConcurrent = peers + 10 }})
	ln, port := w.upstream("127.0.0.1")
	down := bytes.Repeat([]byte("d"), 512<<10)
	var upWG sync.WaitGroup
	upWG.Add(1)
	go func() {
		defer upWG.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			upWG.Add(1)
			go func() {
				defer upWG.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				go func() { c.Write(down); c.(*net.TCPConn).CloseWrite() }()
				io.Copy(io.Discard, struct{ io.Reader }{c}) // a plain read loop, not a splice of the test's own
			}()
		}
	}()
	defer func() { ln.Close(); upWG.Wait() }()

	target := "127.0.0.1:" + strconv.Itoa(port)
	up := bytes.Repeat([]byte("u"), 512<<10)
	// peer opens a tunnel and misbehaves in one of four ways.
	peer := func(kind int) {
		c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
		if err != nil {
			t.Error(err)
			return
		}
		tc := c.(*net.TCPConn)
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, connectHead(target))
		br := newReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("CONNECT: %v %v", resp, err)
			return
		}
		switch kind {
		case 0: // a large upload cut by a reset
			c.Write(up)
			tc.SetLinger(0)
		case 1: // part of a large download, then a reset
			io.CopyN(io.Discard, br, 200<<10)
			tc.SetLinger(0)
		case 2: // upload, half-close, read everything
			c.Write(up[:256<<10])
			tc.CloseWrite()
			io.Copy(io.Discard, br)
		case 3: // reset as soon as the tunnel opens
			tc.SetLinger(0)
		}
	}

	// Warm up (the listener, the audit log, the first tunnel's one-off
	// descriptors), then count.
	peer(2)
	waitFor(t, func() bool { return len(w.srv.sem) == 0 })
	base := openFDs()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := 0; i < peers && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			peer(i % 4)
		})
	}
	wg.Wait()
	during := openFDs()
	waitFor(t, func() bool { return len(w.srv.sem) == 0 })

	deadline := time.Now().Add(5 * time.Second)
	got := openFDs()
	for got > base+4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		got = openFDs()
	}
	t.Logf("descriptors: %d before, %d right after %d hostile peers, %d once their tunnels closed", base, during, peers, got)
	if got > base+4 {
		t.Errorf("descriptors %d → %d (%s) after %d hostile peers; want back near the baseline (within 4) within 5 s", base, got, fdKinds(), peers)
	}
}

// fdKinds summarises this process's open descriptors by kind ("pipe: 3,
// socket: 9, …"), for a failure message.
func fdKinds() string {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return "unknown"
	}
	n := map[string]int{}
	for _, e := range es {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		kind, _, _ := strings.Cut(l, ":")
		if strings.HasPrefix(l, "/") {
			kind = "file"
		}
		n[kind]++
	}
	var parts []string
	for k, v := range n {
		parts = append(parts, k+": "+strconv.Itoa(v))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
