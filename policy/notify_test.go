package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestDecideSeesEditBetweenCalls: with every layer present, a decision
// whose files did not change costs no identity check where change
// notification works (so BenchmarkDecideLayers measures that path, not
// the stats), and every edit made between two decisions — to any
// layer's file, the trust store, or the workspace directory itself — is
// seen by the second. Nothing sleeps.
func TestDecideSeesEditBetweenCalls(t *testing.T) {
	forged := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, ws workspace.Workspace, l *testlayers.Files)
		result policy.Result
		layer  policy.Layer
		code   refusal.Code
	}{
		{"unchanged", func(*testing.T, workspace.Workspace, *testlayers.Files) {}, policy.Allow, policy.LayerWorkspace, ""},
		{"rules.json rewritten in place, same size, mtime forged", func(t *testing.T, ws workspace.Workspace, _ *testlayers.Files) {
			data, err := os.ReadFile(ws.RulesPath())
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(data), `"allow"`, `"deny" `, 1)
			f, err := os.OpenFile(ws.RulesPath(), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(edited); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(ws.RulesPath(), forged, forged); err != nil {
				t.Fatal(err)
			}
		}, policy.Deny, policy.LayerWorkspace, refusal.DeniedByRule},
		{"rules.json deleted", func(t *testing.T, ws workspace.Workspace, _ *testlayers.Files) {
			if err := os.Remove(ws.RulesPath()); err != nil {
				t.Fatal(err)
			}
		}, policy.Ask, policy.LayerBuiltin, refusal.NotApproved},
		{"managed deny added", func(t *testing.T, _ workspace.Workspace, l *testlayers.Files) {
			l.WriteManaged(t, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "target.example", "port": 443}, "decision": "deny"}]}`)
		}, policy.Deny, policy.LayerManaged, refusal.DeniedByRule},
		{"managed policy made group-writable", func(t *testing.T, _ workspace.Workspace, l *testlayers.Files) {
			if err := os.Chmod(l.ManagedPath, 0o664); err != nil {
				t.Fatal(err)
			}
		}, policy.Deny, policy.LayerManaged, refusal.ManagedPolicyInvalid},
		{"managed directory made world-writable", func(t *testing.T, _ workspace.Workspace, l *testlayers.Files) {
			if err := os.Chmod(filepath.Dir(l.ManagedPath), 0o777); err != nil {
				t.Fatal(err)
			}
		}, policy.Deny, policy.LayerManaged, refusal.ManagedPolicyInvalid},
		{"user deny added", func(t *testing.T, _ workspace.Workspace, l *testlayers.Files) {
			l.AddUserRule(t, rules.Rule{Capability: "network", Target: rules.RuleTarget{Schema: "network.target.v1", Host: "target.example", Port: 443}, Decision: rules.Deny})
		}, policy.Deny, policy.LayerUser, refusal.DeniedByRule},
		{"trust store deleted", func(t *testing.T, _ workspace.Workspace, l *testlayers.Files) {
			if err := os.Remove(l.Store.Path()); err != nil {
				t.Fatal(err)
			}
		}, policy.Deny, policy.LayerWorkspace, refusal.WorkspaceUntrusted},
		{"workspace replaced by a copy at the same path", func(t *testing.T, ws workspace.Workspace, _ *testlayers.Files) {
			data, err := os.ReadFile(ws.RulesPath())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(ws.Root, ws.Root+".old"); err != nil {
				t.Fatal(err)
			}
			testws.WriteFile(t, ws.RulesPath(), string(data))
		}, policy.Deny, policy.LayerWorkspace, refusal.WorkspaceUntrusted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.New(t, testws.Spec{Allow: []string{"target.example:443"}})
			l := testlayers.New(t, ws)
			l.WriteManaged(t, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "managed.example", "port": 443}, "decision": "deny"}]}`)
			l.AddUserRule(t, rules.Rule{Capability: "network", Target: rules.RuleTarget{Schema: "network.target.v1", Host: "user.example", Port: 443}, Decision: rules.Allow})
			a := policy.Args{Origin: origin(t, "https://target.example/"), Workspace: ws, Profile: risk.Standard, Layers: l.Layers}
			decide := func() policy.Decision { return policy.Decide(context.Background(), a) }
			for range 2 {
				if d := decide(); d.Result != policy.Allow || d.Layer != policy.LayerWorkspace {
					t.Fatalf("before the change: %s; want allow by the workspace", d)
				}
			}
			before := securefile.Checks()
			decide()
			if n := securefile.Checks() - before; notified(t) && n != 0 {
				t.Errorf("an unchanged decision cost %d identity checks; want 0", n)
			}
			tc.change(t, ws, l)
			d := decide()
			if d.Result != tc.result || d.Layer != tc.layer {
				t.Fatalf("after the change: %s; want %s by %s", d, tc.result, tc.layer)
			}
			if got := refusal.CodeOf(refusalErr(d)); got != tc.code {
				t.Errorf("refusal %q; want %q", got, tc.code)
			}
		})
	}
}

// refusalErr is d's refusal as an error (nil when there is none).
func refusalErr(d policy.Decision) error {
	if d.Refusal == nil {
		return nil
	}
	return d.Refusal
}

// notified reports whether change notification covers the test's
// temporary directories (Linux, a local file system).
func notified(t *testing.T) bool {
	t.Helper()
	return securefile.Watch(nil, t.TempDir(), true).ValidIn(nil)
}
