package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentCallsAreBounded: a client cannot make the server run more
// calls at once than its bound: the calls beyond it are refused at once,
// by name (too_many_connections), without reaching the network; a call
// cancelled by the client (notifications/cancelled) stops its upstream
// request, is audited as cancelled and frees its place.
func TestConcurrentCallsAreBounded(t *testing.T) {
	const limit, extra = 2, 3
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			o := newHangingOrigin(t)
			ws := localWorkspace(t, o.port, fmt.Sprintf("127.0.0.1:%d", o.port))
			cs := connect(t, &Options{Root: ws.Root, maxCalls: limit}, clientSpec{protocol: proto})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			call := func() {
				wg.Go(func() {
					cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": o.srv.URL + "/slow"}})
				})
			}
			for range limit {
				call()
			}
			for range limit {
				o.awaitStart(t)
			}
			for i := range extra {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": fmt.Sprintf("%s/%d", o.srv.URL, i)}})
				if err != nil {
					t.Fatalf("call beyond the bound: protocol error %v; want a result", err)
				}
				if !res.IsError || !strings.HasPrefix(text(res), "too_many_connections: ") || res.Meta["ocfetch/reason"] != "too_many_connections" {
					t.Errorf("call beyond the bound: isError %v, text %q; want too_many_connections", res.IsError, text(res))
				}
			}
			select {
			case <-o.started:
				t.Error("a call beyond the bound reached the origin")
			case <-time.After(100 * time.Millisecond):
			}
			cancel() // notifications/cancelled for the calls in flight
			for range limit {
				o.awaitCancel(t)
			}
			wg.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for len(auditLines(t, ws)) < limit && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			lines := auditLines(t, ws)
			if len(lines) != limit {
				t.Fatalf("%d audit lines; want %d (the refused calls ran nothing)", len(lines), limit)
			}
			for _, l := range lines {
				if l["outcome"] != "cancelled" {
					t.Errorf("audit outcome %v; want cancelled", l["outcome"])
				}
			}
			// The cancelled calls' places are free again.
			deadline = time.Now().Add(10 * time.Second)
			for {
				ctx2, cancel2 := context.WithCancel(context.Background())
				done := make(chan *mcp.CallToolResult, 1)
				go func() {
					res, _ := cs.CallTool(ctx2, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": o.srv.URL + "/again"}})
					done <- res
				}()
				select {
				case <-o.started:
					cancel2()
					<-done
					return
				case res := <-done:
					cancel2()
					if res == nil || !strings.HasPrefix(text(res), "too_many_connections: ") || time.Now().After(deadline) {
						t.Fatalf("call after the others ended: %v", res)
					}
					time.Sleep(20 * time.Millisecond) // the places are freed as the calls unwind
				}
			}
		})
	}
}
