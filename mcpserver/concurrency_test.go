package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestConcurrentCalls runs many calls at once on one session whose root
// comes from the client's roots: every call is served and audited once.
func TestConcurrentCalls(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
			t.Chdir(t.TempDir())
			cs := connect(t, nil, clientSpec{protocol: proto, roots: []*mcp.Root{fileRoot(ws.Root)}})
			const n = 16
			var wg sync.WaitGroup
			errs := make(chan string, n)
			for i := range n {
				wg.Go(func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": fmt.Sprintf("%s/%d", srv.URL, i)}})
					switch {
					case err != nil:
						errs <- err.Error()
					case res.IsError:
						errs <- text(res)
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Errorf("call failed: %s", e)
			}
			if got := len(auditLines(t, ws)); got != n {
				t.Errorf("audit has %d lines; want %d", got, n)
			}
		})
	}
}

// TestElicitationFails: a client whose elicitation fails is a user nobody
// could ask.
func TestElicitationFails(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port)
	client := mcp.NewClient(&mcp.Implementation{Name: "broken", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the UI crashed")
		},
	})
	ms, err := NewServer(&Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protoLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
	if !res.IsError || !strings.HasPrefix(text(res), "not_approved: ") || strings.Contains(text(res), "crashed") {
		t.Errorf("isError %v, text %q; want not_approved without the client's error text", res.IsError, text(res))
	}
}

// TestServeStdioCancel: cancelling Serve's context ends it cleanly even
// while it waits for input.
func TestServeStdioCancel(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	c2sR, c2sW := io.Pipe()
	defer c2sW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, &Options{Root: ws.Root, Stdin: c2sR, Stdout: io.Discard}) }()
	time.Sleep(20 * time.Millisecond) // let it block reading
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel = %v; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

// fakeListener claims a non-loopback address.
type fakeListener struct {
	closed chan struct{}
	once   sync.Once
}

func (f *fakeListener) Accept() (net.Conn, error) { <-f.closed; return nil, net.ErrClosed }
func (f *fakeListener) Close() error              { f.once.Do(func() { close(f.closed) }); return nil }
func (f *fakeListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 80}
}

func TestServeRefusesNonLoopbackListener(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	ln := &fakeListener{closed: make(chan struct{})}
	err := Serve(context.Background(), &Options{Root: ws.Root, Listener: ln})
	if !errors.Is(err, ErrNotLoopback) {
		t.Errorf("Serve(listener on 192.0.2.1:80) = %v; want ErrNotLoopback", err)
	}
	select {
	case <-ln.closed:
	default:
		t.Error("the refused listener was not closed")
	}
}
