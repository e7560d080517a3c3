package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ocfetch/ocfetch/workspace"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionApproval, on both protocol versions the server speaks: an
// answer "for this session" approves later calls to the target in the same
// session without a question, saves no rule, is not shared with another
// session, and is forgotten when the session ends.
func TestSessionApproval(t *testing.T) {
	srv, port := pageServer(t)
	args := fmt.Sprintf(`{"url": %q}`, srv.URL)

	t.Run(protoLegacy, func(t *testing.T) {
		ws := localWorkspace(t, port)
		ms, err := NewServer(&Options{Root: ws.Root})
		if err != nil {
			t.Fatal(err)
		}
		user := &elicitor{action: "accept", decision: "session"}
		cs := connectTo(t, ms, clientSpec{protocol: protoLegacy, elicit: user})
		for i := range 3 {
			if res := callFetch(t, cs, args); res.IsError || !strings.Contains(text(res), pageMarker) {
				t.Fatalf("call %d: %s; want the page", i, text(res))
			}
		}
		if got := len(user.asked()); got != 1 {
			t.Errorf("asked %d times in one session; want 1", got)
		}
		assertDecidedBy(t, ws, "session", "session", "session")
		other := &elicitor{action: "accept", decision: "once"}
		callFetch(t, connectTo(t, ms, clientSpec{protocol: protoLegacy, elicit: other}), args)
		if got := len(other.asked()); got != 1 {
			t.Errorf("another session asked %d times; want 1 (session approvals are not shared)", got)
		}
		if got := ruleTargets(t, ws); len(got) != 0 {
			t.Errorf("rules %v; want none saved", got)
		}
	})

	t.Run(protoMRTR, func(t *testing.T) {
		ws := localWorkspace(t, port)
		s, err := newServer(&Options{Root: ws.Root})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := s.mcpServer()
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		cs := manualClientTo(t, ms)
		call := func(cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
			t.Helper()
			res, err := cs.CallTool(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		raw := json.RawMessage(args)
		first := call(cs, &mcp.CallToolParams{Name: "fetch", Arguments: raw})
		if !first.NeedsInput() {
			t.Fatalf("first call: %s; want the question", text(first))
		}
		session := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "session"}}}
		if res := call(cs, &mcp.CallToolParams{Name: "fetch", Arguments: raw, InputResponses: session, RequestState: first.RequestState}); res.NeedsInput() || !strings.Contains(text(res), pageMarker) {
			t.Fatalf("answered call: %s; want the page", text(res))
		}
		for i := range 2 {
			if res := call(cs, &mcp.CallToolParams{Name: "fetch", Arguments: raw}); res.NeedsInput() || !strings.Contains(text(res), pageMarker) {
				t.Errorf("later call %d: needsInput %v, %s; want the page without a question", i, res.NeedsInput(), text(res))
			}
		}
		other := manualClientTo(t, ms)
		if res := call(other, &mcp.CallToolParams{Name: "fetch", Arguments: raw}); !res.NeedsInput() {
			t.Errorf("another session: %s; want the question", text(res))
		}
		if got := ruleTargets(t, ws); len(got) != 0 {
			t.Errorf("rules %v; want none saved", got)
		}
		assertDecidedBy(t, ws, "session", "session", "session") // a question put back to the client is no call yet
		// The session ends: its approvals are freed.
		cs.Close()
		for deadline := time.Now().Add(5 * time.Second); s.sessionOK.sessions() != 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if n := s.sessionOK.sessions(); n != 0 {
			t.Errorf("%d sessions' approvals remembered after the session ended; want 0", n)
		}
	})
}

// TestEmptyAcceptAsksAgain: an accept without a decision leaves the
// question open — asked again, not taken as an answer.
func TestEmptyAcceptAsksAgain(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port)
	cs := manualClient(t, ws)
	ctx := context.Background()
	raw := json.RawMessage(fmt.Sprintf(`{"url": %q}`, srv.URL))
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: raw})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first call: %v; want the question", err)
	}
	empty := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: raw, InputResponses: empty, RequestState: first.RequestState})
	if err != nil || !res.NeedsInput() {
		t.Errorf("empty accept: %v, %s; want the question again", err, text(res))
	}
}

// assertDecidedBy checks the decided_by of the workspace's audit lines, in
// order: a call approved for the session is audited as "session", not as
// a one-off approval.
func assertDecidedBy(t *testing.T, ws workspace.Workspace, want ...string) {
	t.Helper()
	var got []string
	for _, l := range auditLines(t, ws) {
		s, _ := l["decided_by"].(string)
		got = append(got, s)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("audit decided_by %v; want %v", got, want)
	}
}

// sessions counts the sessions a holds approvals for.
func (a *sessionApprovals) sessions() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.set)
}
