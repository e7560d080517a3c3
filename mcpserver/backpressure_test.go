package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// gateWriter passes writes on to a buffer until stalled; a stalled write
// waits until the gate opens again: a client that stops reading stdout.
type gateWriter struct {
	mu      sync.Mutex
	cond    *sync.Cond
	buf     bytes.Buffer
	stalled bool
}

func newGateWriter() *gateWriter {
	g := &gateWriter{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.stalled {
		g.cond.Wait()
	}
	g.buf.Write(p)
	g.cond.Broadcast()
	return len(p), nil
}

func (g *gateWriter) stall(on bool) {
	g.mu.Lock()
	g.stalled = on
	g.cond.Broadcast()
	g.mu.Unlock()
}

// waitFor waits (bounded) until the output holds s.
func (g *gateWriter) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.AfterFunc(10*time.Second, func() { g.mu.Lock(); g.cond.Broadcast(); g.mu.Unlock() })
	defer deadline.Stop()
	start := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for !strings.Contains(g.buf.String(), s) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no %s in the output", s)
		}
		g.cond.Wait()
	}
}

// answers counts the answers written so far, by numeric id.
func (g *gateWriter) answers(t *testing.T) map[int]int {
	t.Helper()
	g.mu.Lock()
	data := bytes.Clone(g.buf.Bytes())
	g.mu.Unlock()
	answered := map[int]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %.100q: %v", sc.Text(), err)
		}
		var id int
		if json.Unmarshal(m.ID, &id) == nil {
			answered[id]++
		}
	}
	return answered
}

// TestStdioClientThatStopsReading: a stdio client that stops reading its
// output while it keeps sending requests cannot make the server hold an
// unbounded number of them (each a goroutine and its arguments, waiting to
// write its answer): the server stops reading the input once a bounded
// number of answers are due and unwritten. When the client reads again,
// every request it sent is answered, once.
func TestStdioClientThatStopsReading(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	tests := []struct {
		name string
		line func(id int) string
	}{
		{"tools/call", func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fetch","arguments":{"url":5,"pad":%q}}}`, id, strings.Repeat("x", 1000))
		}},
		{"ping", func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":%q}}}`, id, strings.Repeat("x", 1000))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			out := newGateWriter()
			done := make(chan error, 1)
			go func() { done <- Serve(context.Background(), &Options{Root: ws.Root, Stdin: inR, Stdout: out}) }()
			send := func(s string) {
				if _, err := io.WriteString(inW, s+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, protoLegacy))
			out.waitFor(t, `"id":"init"`)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)

			out.stall(true)
			const n = 2000
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				for id := range n {
					if _, err := io.WriteString(inW, tc.line(id)+"\n"); err != nil {
						return
					}
				}
			}()
			select {
			case <-sent:
				t.Errorf("the server read all %d requests while none of their answers could be written; want it to stop reading", n)
			case <-time.After(2 * time.Second):
			}
			out.stall(false)
			select {
			case <-sent:
			case <-time.After(30 * time.Second):
				t.Fatal("the server did not read on once its output was read again")
			}
			// Every request is answered, once (in any order).
			deadline := time.Now().Add(30 * time.Second)
			for {
				answered := out.answers(t)
				missing := -1
				for id := range n {
					if answered[id] > 1 {
						t.Fatalf("request %d answered %d times; want once", id, answered[id])
					}
					if answered[id] == 0 && missing < 0 {
						missing = id
					}
				}
				if missing < 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("request %d not answered", missing)
				}
				time.Sleep(20 * time.Millisecond)
			}
			inW.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve = %v", err)
			}
		})
	}
}
