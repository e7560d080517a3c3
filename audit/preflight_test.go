package audit_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestPreflight(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, ws workspace.Workspace)
		ok    bool
	}{
		{"missing file is created", func(t *testing.T, ws workspace.Workspace) {}, true},
		{"regular file", func(t *testing.T, ws workspace.Workspace) {
			mustWrite(t, ws.AuditPath(), "")
		}, true},
		{"a directory", func(t *testing.T, ws workspace.Workspace) {
			if err := os.MkdirAll(ws.AuditPath(), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a symlink to a regular file", func(t *testing.T, ws workspace.Workspace) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			mustWrite(t, other, "")
			if err := os.Symlink(other, ws.AuditPath()); err != nil {
				t.Skip("no symlinks:", err)
			}
		}, false},
		{"a dangling symlink", func(t *testing.T, ws workspace.Workspace) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "nothing"), ws.AuditPath()); err != nil {
				t.Skip("no symlinks:", err)
			}
		}, false},
		{"a read-only directory", func(t *testing.T, ws workspace.Workspace) {
			if runtime.GOOS == "windows" || os.Geteuid() == 0 {
				t.Skip("permissions are not enforced here")
			}
			if err := os.Chmod(ws.Dir(), 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ws.Dir(), 0o755) })
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspace.Workspace{Root: t.TempDir()}
			if err := ws.EnsureDir(); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, ws)
			err := audit.Open(ws).Preflight()
			if tc.ok {
				if err != nil {
					t.Fatalf("Preflight: %v; want nil", err)
				}
				if fi, err := os.Lstat(ws.AuditPath()); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("after Preflight the log is %v, %v; want a regular file", fi, err)
				}
				return
			}
			r, ok := refusal.As(err)
			if !ok || r.Code != refusal.AuditUnavailable {
				t.Fatalf("Preflight = %v; want audit_unavailable", err)
			}
			if !strings.Contains(r.Message, ws.AuditPath()) {
				t.Errorf("message %q does not name %s", r.Message, ws.AuditPath())
			}
		})
	}
}

func TestPreflightNilLog(t *testing.T) {
	var l *audit.Log
	if err := l.Preflight(); err != nil {
		t.Fatalf("nil log Preflight = %v; want nil", err)
	}
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
