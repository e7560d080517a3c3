//go:build linux

package shellrun

import (
	"bytes"
	"context"
	"github.com/ocfetch/ocfetch/scope"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// TestRunProtectsPolicyFiles: Run keeps the policy files of its scope
// read-only for the sandboxed command whatever Options.Filesystem says (here:
// nothing, the default) — the workspace's .oc_chat/, which Run creates
// first, the user's rules and trust store, the managed policy's
// directory — while the workspace itself stays writable.
func TestRunProtectsPolicyFiles(t *testing.T) {
	ws := testws.SandboxReady(t, testws.Bare(t))
	l := testlayers.New(t, ws)
	pat, err := capability.ParseHostPattern("user.test")
	if err != nil {
		t.Fatal(err)
	}
	l.AddUserRule(t, rules.NewRule(rules.Deny, pat, 443))
	l.WriteManaged(t, `{}`)
	sc, log := &scope.Scope{Workspace: ws, Layers: l.Layers}, audit.Open(ws)
	want := []string{ws.Dir(), ws.AuditPath(), l.ConfigDir, filepath.Dir(l.ManagedPath)}
	if diff := cmp.Diff(want, PolicyFiles(sc, log)); diff != "" {
		t.Errorf("PolicyFiles (-want +got)\n%s", diff)
	}
	userRules, _ := os.ReadFile(l.Layers.User.Path())
	script := `
echo x > "$1"/rules.json 2>/dev/null && echo wrote-user-rules
echo x > "$1"/trust.json 2>/dev/null && echo wrote-trust
echo {} > "$2" 2>/dev/null && echo wrote-managed
echo x > .oc_chat/rules.json 2>/dev/null && echo wrote-workspace-rules
echo x > in-workspace && echo wrote-workspace
`
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := run(ctx, sc, &Options{Audit: log, Stdout: &out, Stderr: io.Discard},
		[]string{"sh", "-c", "cd " + ws.Root + " && " + script, "sh", l.ConfigDir, l.ManagedPath})
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
			t.Skipf("sandbox unavailable here: %v", r)
		}
		t.Fatalf("run: %d, %v", code, err)
	}
	if got := strings.TrimSpace(out.String()); got != "wrote-workspace" {
		t.Errorf("output %q; want only the workspace write to succeed", got)
	}
	if b, _ := os.ReadFile(l.Layers.User.Path()); !bytes.Equal(b, userRules) {
		t.Errorf("the user's rules changed: %q", b)
	}
	if b, _ := os.ReadFile(l.ManagedPath); string(b) != `{}` {
		t.Errorf("the managed policy changed: %q", b)
	}
	if _, err := os.Stat(ws.Dir()); err != nil {
		t.Errorf("Run did not create .oc_chat/ first: %v", err)
	}
	if _, err := os.Stat(ws.RulesPath()); err == nil {
		t.Error("the command created the workspace's rules.json")
	}
}
