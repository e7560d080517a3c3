package localfetch

import (
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/workspace"
	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (the
// hang-guard goroutines of the special-file tests must all finish).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newWorkspace returns a workspace in a fresh temporary directory with no
// .oc_chat directory.
func newWorkspace(t testing.TB) workspace.Workspace {
	t.Helper()
	return workspace.Workspace{Root: t.TempDir()}
}

// writeAllowlistFile writes data, byte for byte, as the allowlist of ws.
func writeAllowlistFile(t testing.TB, ws workspace.Workspace, data string) {
	t.Helper()
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(AllowlistPath(ws), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
