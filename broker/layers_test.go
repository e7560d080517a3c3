package broker_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/scope"
)

// In a directory with no .oc_chat/, an "always" answer (and the audit line
// before it) creates .oc_chat/ and trusts the workspace: the saved rule
// counts on the next call, with no trust command.
func TestAlwaysInAFreshWorkspaceTrustsIt(t *testing.T) {
	ws := testws.Bare(t)
	l := testlayers.New(t) // nothing trusted yet
	var asked []broker.ApprovalRequest
	var diagnostics bytes.Buffer
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: l.Layers}, Approver: answer(broker.Always, &asked), Audit: audit.Open(ws),
		Logger: diag.NewPlain(&diagnostics, 1)}
	ft := &fakeTool{}
	res := b.Call(context.Background(), ft, `{"target":"docs.example"}`)
	if res.IsError || res.RuleNotSaved != nil {
		t.Fatalf("first call: %s (not saved: %v)", res.Content, res.RuleNotSaved)
	}
	// The rule saved is an L1 line (diag: "a rule saved"), domain RULES.
	want := `level=L1 msg="rule saved" domain=RULES target=docs.example:443 decision=allow file=` + ws.RulesPath()
	if !strings.Contains(diagnostics.String(), want) {
		t.Errorf("diagnostics at -v:\n%s\nwant the line %q", diagnostics.String(), want)
	}
	if ok, err := l.Store.Trusted(ws.Root); !ok || err != nil {
		t.Fatalf("the workspace ocfetch created is not trusted: %v, %v", ok, err)
	}
	b.Approver = neverAsk(t)
	if res := b.Call(context.Background(), ft, `{"target":"docs.example"}`); res.IsError {
		t.Fatalf("second call: %s; want it covered by the saved rule", res.Content)
	}
}

// In a workspace that came with its .oc_chat/, "always" saves the rule
// but it counts for nothing until the user trusts the workspace: the
// result says so (RuleNotSaved, workspace_untrusted), and the call ran.
func TestAlwaysInAnUntrustedWorkspaceSaysSo(t *testing.T) {
	ws := testws.New(t, testws.Spec{Profile: "standard"}) // came with its .oc_chat/settings.json
	l := testlayers.New(t)
	var asked []broker.ApprovalRequest
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: l.Layers}, Approver: answer(broker.Always, &asked), Audit: audit.Open(ws)}
	ft := &fakeTool{}
	res := b.Call(context.Background(), ft, `{"target":"docs.example"}`)
	if res.IsError || ft.ran != 1 {
		t.Fatalf("call: %s; want it run once", res.Content)
	}
	r := res.RuleNotSaved
	if r == nil || r.Code != refusal.WorkspaceUntrusted || !strings.Contains(r.Message, ws.RulesPath()) || !strings.Contains(r.Hint, "ocfetch trust --root") {
		t.Fatalf("RuleNotSaved = %v; want workspace_untrusted naming %s with the trust hint", r, ws.RulesPath())
	}
	if want := "run `ocfetch trust --root " + ws.Root + "` if you trust this workspace's files"; r.Hint != want {
		t.Errorf("hint for a person = %q; want %q", r.Hint, want)
	}
	b.Approver = neverAsk(t)
	if res := b.Call(context.Background(), ft, `{"target":"docs.example"}`); res.Reason != refusal.WorkspaceUntrusted {
		t.Errorf("next call: %s; want workspace_untrusted (the rule is the untrusted workspace's)", res.Content)
	}

	// A model (the MCP server) is told to ask the user to run the command.
	ws2 := testws.New(t, testws.Spec{Profile: "standard"})
	b = &broker.Broker{Scope: &scope.Scope{Workspace: ws2, Profile: risk.Standard, Layers: l.Layers}, Approver: answer(broker.Always, &asked), Audit: audit.Open(ws2), ForModel: true}
	res = b.Call(context.Background(), ft, `{"target":"docs.example"}`)
	if r := res.RuleNotSaved; r == nil || r.Hint != "ask the user to run: ocfetch trust --root "+ws2.Root+" if they trust this workspace's files" {
		t.Errorf("RuleNotSaved for a model = %v; want the hint asking the user to run the trust command", r)
	}
}

// A rule that cannot be saved is reported in the result, not only in the
// diagnostics; the approved call runs once.
func TestAlwaysSaveFailureIsReported(t *testing.T) {
	ws := testws.New(t, testws.Spec{})
	l := testlayers.New(t, ws)
	// The lock file a directory: rules.json reads (missing), the save fails.
	if err := os.Mkdir(filepath.Join(ws.Dir(), "rules.json.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	var asked []broker.ApprovalRequest
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: l.Layers}, Approver: answer(broker.Always, &asked), Audit: audit.Open(ws)}
	ft := &fakeTool{}
	res := b.Call(context.Background(), ft, `{"target":"docs.example"}`)
	if res.IsError || ft.ran != 1 {
		t.Fatalf("call: %s; want it run once", res.Content)
	}
	if r := res.RuleNotSaved; r == nil || !strings.Contains(r.Message, `the rule "allow docs.example:443" was not saved`) {
		t.Fatalf("RuleNotSaved = %v; want the failed save reported", r)
	}
	if e := lastAudit(t, ws); e.DecidedBy != audit.ByOnce {
		t.Errorf("audit decided_by %q; want once (the rule was not saved)", e.DecidedBy)
	}
}
