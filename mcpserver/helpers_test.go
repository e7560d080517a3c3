package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/workspace"
)

// protoLegacy is the last protocol version on which the server asks the
// client directly (elicitation/create, roots/list); protoMRTR is the multi
// round-trip protocol, the SDK client's default, where questions travel in
// the call's result.
const (
	protoLegacy = "2025-11-25"
	protoMRTR   = "2026-07-28"
)

var protocols = []string{protoLegacy, protoMRTR}

// pageBody is what the loopback page serves; pageMarker is a phrase of it
// that must reach the model.
const (
	pageBody   = "<html><head><title>Hello page</title></head><body><main><h1>Hello</h1><p>The loopback page says hello to ocfetch.</p></main></body></html>"
	pageMarker = "The loopback page says hello to ocfetch."
)

// pageServer starts a loopback HTTP server serving pageBody at every path
// and returns it with its port.
func pageServer(t testing.TB) (*httptest.Server, uint16) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, pageBody)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.ParseUint(u.Port(), 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	return srv, uint16(port)
}

// localWorkspace is a permissive workspace whose local_fetch.json admits
// port, with the given allow rules.
func localWorkspace(t testing.TB, port uint16, allow ...string) workspace.Workspace {
	return trustedWS(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}, Allow: allow})
}

// elicitor is a scripted user: it answers every elicitation with answer
// and records the messages it was shown.
type elicitor struct {
	mu       sync.Mutex
	messages []string
	action   string // accept, decline, cancel
	decision string // for accept
	// noChoice: accept with no content, so no decision (content that
	// lacks the required decision the SDK refuses before the server sees
	// it).
	noChoice bool
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	res := &mcp.ElicitResult{Action: e.action}
	if e.action == "accept" {
		res.Content = map[string]any{decisionField: e.decision}
		if e.noChoice {
			res.Content = nil
		}
	}
	return res, nil
}

func (e *elicitor) asked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.messages...)
}

// clientSpec configures the test client.
type clientSpec struct {
	protocol string      // "" for the SDK default
	elicit   *elicitor   // nil: the client does not declare elicitation
	roots    []*mcp.Root // client roots; nil with noRoots for none
	noRoots  bool        // do not declare the roots capability
	// client, if set, receives the client, to change its roots.
	client **mcp.Client
}

// connect serves a NewServer(opts) over in-memory transports and returns a
// connected client session; both ends are closed when the test ends.
func connect(t testing.TB, opts *Options, cs clientSpec) *mcp.ClientSession {
	t.Helper()
	ms, err := NewServer(opts)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	return connectTo(t, ms, cs)
}

func connectTo(t testing.TB, ms *mcp.Server, cs clientSpec) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	copts := &mcp.ClientOptions{}
	if cs.elicit != nil {
		copts.ElicitationHandler = cs.elicit.handle
	}
	if cs.noRoots {
		copts.Capabilities = &mcp.ClientCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, copts)
	if len(cs.roots) > 0 {
		client.AddRoots(cs.roots...)
	}
	if cs.client != nil {
		*cs.client = client
	}
	session, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: cs.protocol})
	if err != nil {
		ss.Close()
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		session.Close()
		ss.Wait()
	})
	return session
}

// callFetch calls the fetch tool with raw JSON arguments.
func callFetch(t testing.TB, cs *mcp.ClientSession, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool(%.80s): protocol error %v; want a result", args, err)
	}
	return res
}

// text returns the concatenated text content of res.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// fileRoot is the MCP root for dir.
func fileRoot(dir string) *mcp.Root {
	return &mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()}
}

// auditLines returns the audit log of ws, one decoded object a line.
func auditLines(t testing.TB, ws workspace.Workspace) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(ws.AuditPath())
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// ruleTargets returns the "decision host:port" of every rule saved in ws.
func ruleTargets(t testing.TB, ws workspace.Workspace) []string {
	t.Helper()
	data, err := os.ReadFile(ws.RulesPath())
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Rules []struct {
			Target struct {
				Host string `json:"host"`
				Port int    `json:"port"`
			} `json:"target"`
			Decision string `json:"decision"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("rules.json: %v", err)
	}
	var out []string
	for _, r := range f.Rules {
		out = append(out, fmt.Sprintf("%s %s:%d", r.Decision, r.Target.Host, r.Target.Port))
	}
	return out
}

// wsAt returns the workspace at root.
func wsAt(t testing.TB, root string) workspace.Workspace {
	t.Helper()
	ws, err := workspace.Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// newTestLogger logs every level as text to w.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.Level(-12)}))
}
