package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestApprovalReplay: one approval, one call. Three POSTs of one call
// answered "once" with the same sealed state, concurrently, on the
// multi round-trip protocol: one runs, the others are asked again, and the
// origin and the audit log see one call.
func TestApprovalReplay(t *testing.T) {
	var hits atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, pageBody)
	}))
	t.Cleanup(origin.Close)
	u, _ := url.Parse(origin.URL)
	port, _ := strconv.ParseUint(u.Port(), 10, 16)
	ws := localWorkspace(t, uint16(port))
	cs := manualClient(t, ws)
	ctx := context.Background()
	args := json.RawMessage(fmt.Sprintf(`{"url": %q, "method": "POST", "body": "x"}`, origin.URL))
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first call: %v, %s; want an approval request", err, text(first))
	}
	once := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}

	var wg sync.WaitGroup
	var ran, asked atomic.Int32
	for range 3 {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args, InputResponses: once, RequestState: first.RequestState})
			switch {
			case err != nil:
				t.Errorf("replayed call: %v", err)
			case res.NeedsInput():
				asked.Add(1)
			case !res.IsError:
				ran.Add(1)
			default:
				t.Errorf("replayed call: %s; want a run or the question again", text(res))
			}
		})
	}
	wg.Wait()
	if ran.Load() != 1 || asked.Load() != 2 {
		t.Errorf("%d ran, %d asked again; want 1 and 2", ran.Load(), asked.Load())
	}
	if got := hits.Load(); got != 1 {
		t.Errorf("origin saw %d requests; want 1", got)
	}
	lines := auditLines(t, ws)
	if len(lines) != 1 || lines[0]["decided_by"] != "once" {
		t.Errorf("audit lines %v; want one, decided once", lines)
	}
}

// TestApprovalAlwaysNeedsNoState: "always" saves a rule, so the same call
// later runs with no state and no question.
func TestApprovalAlwaysNeedsNoState(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port)
	cs := manualClient(t, ws)
	ctx := context.Background()
	args := json.RawMessage(fmt.Sprintf(`{"url": %q}`, srv.URL))
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first call: %v; want an approval request", err)
	}
	always := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "always"}}}
	for i, p := range []*mcp.CallToolParams{
		{Name: "fetch", Arguments: args, InputResponses: always, RequestState: first.RequestState},
		{Name: "fetch", Arguments: args},
		{Name: "fetch", Arguments: args, InputResponses: always, RequestState: first.RequestState}, // a replay is harmless now
	} {
		res, err := cs.CallTool(ctx, p)
		if err != nil || res.NeedsInput() || res.IsError || !strings.Contains(text(res), pageMarker) {
			t.Errorf("call %d: %v, needsInput %v, text %.100q; want the page", i, err, res != nil && res.NeedsInput(), text(res))
		}
	}
	if got := ruleTargets(t, ws); len(got) != 1 || got[0] != fmt.Sprintf("allow 127.0.0.1:%d", port) {
		t.Errorf("rules %v; want one allow rule", got)
	}
}

// manualClient connects a client on the multi round-trip protocol that
// declares form elicitation and leaves input requests to the test.
func manualClient(t *testing.T, ws workspace.Workspace) *mcp.ClientSession {
	t.Helper()
	ms, err := NewServer(&Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	return manualClientTo(t, ms)
}

func manualClientTo(t *testing.T, ms *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "manual", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	if p := cs.InitializeResult().ProtocolVersion; p != protoMRTR {
		t.Fatalf("protocol %s; want %s", p, protoMRTR)
	}
	return cs
}
