package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/tool"

	"github.com/google/uuid"
)

// lineRecorder records what the server writes to stdout, to check that it
// is nothing but JSON-RPC messages.
type lineRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.Writer
}

func (r *lineRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

// checkProtocolOnly fails unless every line written is one JSON-RPC 2.0
// message.
func (r *lineRecorder) checkProtocolOnly(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(r.buf.Bytes()))
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		var ms []struct {
			JSONRPC string `json:"jsonrpc"`
		}
		line := sc.Bytes()
		if len(line) > 0 && line[0] != '[' { // else a batch answer
			line = append(append([]byte("["), line...), ']')
		}
		err := json.Unmarshal(line, &ms)
		if err != nil || len(ms) == 0 {
			t.Errorf("stdout line %d is not a JSON-RPC message: %.200q", n, sc.Text())
		}
		for _, m := range ms {
			if m.JSONRPC != "2.0" {
				t.Errorf("stdout line %d is not a JSON-RPC message: %.200q", n, sc.Text())
			}
		}
		n++
	}
	if n == 0 {
		t.Error("nothing was written to stdout")
	}
}

func TestServeStdio(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port)
			c2sR, c2sW := io.Pipe()
			s2cR, s2cW := io.Pipe()
			rec := &lineRecorder{w: s2cW}
			var logs bytes.Buffer
			done := make(chan error, 1)
			go func() {
				err := Serve(context.Background(), &Options{Root: ws.Root, Stdin: c2sR, Stdout: rec, Logger: newTestLogger(&logs)})
				s2cW.Close()
				done <- err
			}()
			user := &elicitor{action: "accept", decision: "always"}
			client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: user.handle})
			cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: s2cR, Writer: c2sW}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL+"/p?q=1"))
			if res.IsError || !strings.Contains(text(res), pageMarker) {
				t.Errorf("isError %v, text:\n%s", res.IsError, text(res))
			}
			if res := callFetch(t, cs, `{"url": 1}`); !res.IsError {
				t.Error("malformed call: isError = false")
			}
			if got := len(user.asked()); got != 1 {
				t.Errorf("elicited %d times; want 1", got)
			}
			cs.Close() // closes stdin: a clean end
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve = %v; want nil when the client closes stdin", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after stdin closed")
			}
			rec.checkProtocolOnly(t)
			if strings.Contains(logs.String(), "q=1") || strings.Contains(logs.String(), "/p") {
				t.Errorf("diagnostics hold the path or query:\n%s", logs.String())
			}
		})
	}
}

// testToken is the bearer token of the HTTP servers tests start.
const testToken = "test-token-0123456789abcdef"

// authClient is an HTTP client that sends "Authorization: Bearer token".
func authClient(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token: token, next: http.DefaultTransport}}
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// serveHTTP starts Serve on a loopback port and returns its address; the
// server is stopped (and Serve's result checked) when the test ends.
func serveHTTPForTest(t *testing.T, opts *Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	opts.HTTPAddr = "127.0.0.1:0"
	if opts.BearerToken == "" {
		opts.BearerToken = testToken
	}
	opts.Ready = func(a net.Addr) { addrc <- a }
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, opts) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve after cancel = %v; want nil", err)
		}
	})
	return addr.String()
}

func TestServeHTTP(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port)
			addr := serveHTTPForTest(t, &Options{Root: ws.Root})
			user := &elicitor{action: "accept", decision: "once"}
			client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: user.handle})
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", MaxRetries: -1, HTTPClient: authClient(testToken)}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
			if res.IsError || !strings.Contains(text(res), pageMarker) {
				t.Errorf("isError %v, text:\n%s", res.IsError, text(res))
			}
			if got := len(user.asked()); got != 1 {
				t.Errorf("elicited %d times; want 1", got)
			}
			if res := callFetch(t, cs, `{"url": "https://example.com/", "extra": 1}`); !res.IsError || !strings.HasPrefix(text(res), "invalid_arguments: ") {
				t.Errorf("unknown field: isError %v, text %q; want invalid_arguments", res.IsError, text(res))
			}
			// Above the SDK's default 4 MiB request cap: still an error
			// result, as on stdio, not an HTTP 413.
			if !raceEnabled && proto == protoLegacy {
				big := `{"url": "https://example.com/` + strings.Repeat("a", 5<<20) + `"}`
				if res := callFetch(t, cs, big); !res.IsError || !strings.HasPrefix(text(res), "invalid_arguments: ") {
					t.Errorf("5 MiB url: isError %v, text %.100q; want invalid_arguments", res.IsError, text(res))
				}
			}
		})
	}
}

// TestServeHTTPRefusesBrowsers: a web page must not reach the server,
// neither by DNS rebinding (a foreign Host header) nor cross-origin.
func TestServeHTTPRefusesBrowsers(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	addr := serveHTTPForTest(t, &Options{Root: ws.Root})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name   string
		header map[string]string
		host   string
	}{
		{name: "rebinding host", host: "attacker.example:80"},
		{name: "cross-site origin", header: map[string]string{"Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status = %d; want 403", resp.StatusCode)
			}
		})
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	err := Serve(context.Background(), &Options{Root: ws.Root, HTTPAddr: "0.0.0.0:0"})
	if !errors.Is(err, ErrNotLoopback) {
		t.Errorf("Serve(--http 0.0.0.0:0) = %v; want ErrNotLoopback", err)
	}
}

func TestNewServerOptionErrors(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	tests := []struct {
		name string
		opts *Options
	}{
		{"root missing", &Options{Root: ws.Root + "/missing"}},
		{"root a file", &Options{Root: ws.SettingsPath()}},
		{"unknown profile", &Options{Root: ws.Root, Profile: "yolo"}},
	}
	testws.WriteFile(t, ws.SettingsPath(), `{}`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewServer(tc.opts); err == nil {
				t.Errorf("NewServer: no error; want one")
			}
		})
	}
}

// TestExplicitProfile: --profile overrides settings.json.
func TestExplicitProfile(t *testing.T) {
	srv, port := pageServer(t)
	ws := trustedWS(t, testws.Spec{Profile: "standard", LocalPorts: []uint16{port}, Allow: []string{fmt.Sprintf("127.0.0.1:%d", port)}})
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
	if res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL)); !strings.HasPrefix(text(res), "local_profile_not_permissive: ") {
		t.Errorf("settings standard: text %q; want local_profile_not_permissive", text(res))
	}
	cs = connect(t, &Options{Root: ws.Root, Profile: "permissive"}, clientSpec{})
	if res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL)); res.IsError {
		t.Errorf("--profile permissive: text %q; want the page", text(res))
	}
}

// panicTool panics in every method a call reaches.
type panicTool struct{}

func (panicTool) Info(context.Context) (*tool.Info, error) {
	return &tool.Info{Name: "fetch", Description: "panics", InputSchema: json.RawMessage(`{"type":"object"}`)}, nil
}
func (panicTool) PrepareCall(context.Context, uuid.UUID, string) (tool.Request, tool.PreparedArtifact, error) {
	panic("prepare exploded")
}
func (panicTool) InvokableRun(context.Context, string) (*tool.Result, error) { panic("run exploded") }
func (panicTool) AuditSummary(string) string                                 { return "GET example.com" }

// fakeTool needs network access to example.com:443 and answers "ran".
type fakeTool struct{}

func (fakeTool) Info(context.Context) (*tool.Info, error) {
	return &tool.Info{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object"}`)}, nil
}
func (fakeTool) PrepareCall(_ context.Context, id uuid.UUID, _ string) (tool.Request, tool.PreparedArtifact, error) {
	return tool.Request{ExecutionID: id, Tool: "fetch", Requirements: []capability.Requirement{capability.Network(capability.MustTarget("example.com", 443))}}, struct{}{}, nil
}
func (fakeTool) InvokableRun(ctx context.Context, _ string) (*tool.Result, error) {
	if _, _, ok := tool.ArtifactFrom(ctx); !ok {
		return nil, refusal.New(refusal.InternalError, "no artifact")
	}
	return &tool.Result{Content: "ran", Status: 200}, nil
}
func (fakeTool) AuditSummary(string) string { return "GET example.com" }

func TestPanicIsAnErrorResult(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	calls := 0
	opts := &Options{Root: ws.Root, newTool: func(*http.Client) tool.Tool {
		calls++
		if calls == 1 { // the Info of NewServer
			return fakeTool{}
		}
		if calls == 2 {
			return panicTool{}
		}
		return fakeTool{}
	}}
	cs := connect(t, opts, clientSpec{elicit: &elicitor{action: "accept", decision: "once"}, protocol: protoLegacy})
	res := callFetch(t, cs, `{}`)
	if !res.IsError || text(res) != "internal_error: internal error" {
		t.Errorf("isError %v, text %q; want internal_error", res.IsError, text(res))
	}
	if res := callFetch(t, cs, `{}`); res.IsError || text(res) != "ran" {
		t.Errorf("after the panic: isError %v, text %q; want the call to run", res.IsError, text(res))
	}
}
