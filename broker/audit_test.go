package broker_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestAuditUnavailableRefuses is issue 11 item 6: an audit log that is a
// directory, a symlink or in a read-only directory refuses the call with
// audit_unavailable naming the file, and nothing runs.
func TestAuditUnavailableRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, ws workspace.Workspace)
	}{
		{"a directory", func(t *testing.T, ws workspace.Workspace) {
			if err := os.Mkdir(ws.AuditPath(), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlink", func(t *testing.T, ws workspace.Workspace) {
			other := filepath.Join(t.TempDir(), "other.jsonl")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, ws.AuditPath()); err != nil {
				t.Skip("no symlinks:", err)
			}
		}},
		{"a read-only directory", func(t *testing.T, ws workspace.Workspace) {
			if runtime.GOOS == "windows" || os.Geteuid() == 0 {
				t.Skip("permissions are not enforced here")
			}
			if err := os.Chmod(ws.Dir(), 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ws.Dir(), 0o755) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.New(t, testws.Spec{Allow: []string{"example.com:443"}})
			tc.setup(t, ws)
			ft := &fakeTool{}
			b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, Approver: neverAsk(t), Audit: audit.Open(ws)}
			res := b.Call(context.Background(), ft, `{"target":"example.com"}`)
			if res.Reason != refusal.AuditUnavailable || ft.ran != 0 {
				t.Fatalf("reason %q, ran %d; want audit_unavailable and nothing run", res.Reason, ft.ran)
			}
			if !strings.Contains(res.Message, ws.AuditPath()) {
				t.Errorf("message %q does not name %s", res.Message, ws.AuditPath())
			}
		})
	}
}

// breakAuditTool replaces the audit log by a directory while it runs, so
// the line after the call fails.
type breakAuditTool struct {
	fakeTool
	ws workspace.Workspace
}

func (b *breakAuditTool) InvokableRun(ctx context.Context, args string) (*tool.Result, error) {
	os.Remove(b.ws.AuditPath())
	os.Mkdir(b.ws.AuditPath(), 0o755)
	return b.fakeTool.InvokableRun(ctx, args)
}

// TestAuditFailureAfterCallIsReported: a line that cannot be written after
// the call is in the result, for the front end to report.
func TestAuditFailureAfterCallIsReported(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"example.com:443"}})
	bt := &breakAuditTool{ws: ws}
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, Approver: neverAsk(t), Audit: audit.Open(ws)}
	res := b.Call(context.Background(), bt, `{"target":"example.com"}`)
	if res.IsError || bt.ran != 1 {
		t.Fatalf("result %+v ran %d; want the call delivered", res, bt.ran)
	}
	if res.AuditFailure == nil || res.AuditFailure.Code != refusal.AuditUnavailable || !strings.Contains(res.AuditFailure.Message, ws.AuditPath()) {
		t.Fatalf("AuditFailure = %v; want audit_unavailable naming %s", res.AuditFailure, ws.AuditPath())
	}
}

// TestPending is what the MCP server asks: would this call ask the user?
func TestPending(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"allowed.example:443"}, Deny: []string{"denied.example:443"}})
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, Audit: audit.Open(ws)}
	for target, want := range map[string]bool{"allowed.example": false, "denied.example": false, "new.example": true} {
		ft := &fakeTool{}
		req, ask := b.Pending(context.Background(), ft, `{"target":"`+target+`"}`)
		if ask != want || ft.ran != 0 {
			t.Errorf("Pending(%s) = %v (ran %d); want %v, nothing run", target, ask, ft.ran, want)
		}
		if ask && (req.Requirement.Target.Host() != target || req.Tool != "fake") {
			t.Errorf("Pending(%s) asks %+v", target, req)
		}
	}
	if entries, _ := audit.Read(ws, 10); len(entries) != 0 {
		t.Errorf("Pending wrote %d audit lines; want none", len(entries))
	}
	if set, _ := rules.Load(ws); len(set.Rules()) != 2 {
		t.Errorf("Pending changed the rules: %v", set.Rules())
	}
}

// TestForModelHint: the MCP broker's not_approved hint asks the model to
// have the user run the command.
func TestForModelHint(t *testing.T) {
	ws := testws.Bare(t)
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, ForModel: true}
	res := b.Call(context.Background(), &fakeTool{}, `{"target":"new.example"}`)
	if res.Reason != refusal.NotApproved || res.Hint != "ask the user to run: ocfetch rules allow new.example:443" {
		t.Fatalf("reason %q hint %q", res.Reason, res.Hint)
	}
}
