package audit_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestKeptLogFollowsTheName: the descriptor kept open between calls writes
// only while audit.jsonl is still the file it opened. Rotated or deleted,
// the next line goes to a new audit.jsonl; replaced by a symlink, or with
// .oc_chat replaced by one, Preflight refuses audit_unavailable before
// anything is sent, as when every call opened the file.
func TestKeptLogFollowsTheName(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, ws workspace.Workspace)
		refused bool   // Preflight refuses after the change
		rotated string // where the first line must be, relative to .oc_chat
	}{
		{"rotated", func(t *testing.T, ws workspace.Workspace) {
			mustRename(t, ws.AuditPath(), ws.AuditPath()+".1")
		}, false, "audit.jsonl.1"},
		{"deleted", func(t *testing.T, ws workspace.Workspace) {
			if err := os.Remove(ws.AuditPath()); err != nil {
				t.Fatal(err)
			}
		}, false, ""},
		{"replaced by a symlink to itself", func(t *testing.T, ws workspace.Workspace) {
			mustRename(t, ws.AuditPath(), ws.AuditPath()+".real")
			symlink(t, ws.AuditPath()+".real", ws.AuditPath())
		}, true, "audit.jsonl.real"},
		{".oc_chat replaced by a symlink to itself", func(t *testing.T, ws workspace.Workspace) {
			moved := filepath.Join(t.TempDir(), "moved")
			mustRename(t, ws.Dir(), moved)
			symlink(t, moved, ws.Dir())
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			log := audit.Open(ws)
			if err := log.Preflight(); err != nil {
				t.Fatal(err)
			}
			if err := log.Append(entry("first", 1)); err != nil {
				t.Fatal(err)
			}
			tc.change(t, ws)
			err := log.Preflight()
			if tc.refused {
				if refusal.CodeOf(err) != refusal.AuditUnavailable || !errors.Is(err, workspace.ErrSymlink) {
					t.Fatalf("Preflight after the change = %v; want audit_unavailable, a symlink", err)
				}
				// (Append alone checks the name, not .oc_chat: a broker never
				// appends after a refused Preflight, and a kept descriptor
				// writes only the file that was checked.)
				if err := log.Append(entry("second", 2)); tc.name != ".oc_chat replaced by a symlink to itself" && !errors.Is(err, workspace.ErrSymlink) {
					t.Fatalf("Append after the change = %v; want a symlink refused", err)
				}
			} else {
				if err != nil {
					t.Fatalf("Preflight after the change: %v", err)
				}
				if err := log.Append(entry("second", 2)); err != nil {
					t.Fatal(err)
				}
				got := readFile(t, ws.AuditPath())
				if strings.Count(got, "\n") != 1 || !strings.Contains(got, `"second-2"`) {
					t.Fatalf("audit.jsonl after the change holds %q; want the second line only", got)
				}
			}
			if tc.rotated != "" {
				got := readFile(t, filepath.Join(ws.Dir(), tc.rotated))
				if strings.Count(got, "\n") != 1 || !strings.Contains(got, `"first-1"`) {
					t.Fatalf("%s holds %q; want the first line only", tc.rotated, got)
				}
			}
		})
	}
}

// TestKeptLogReadOnly: a log made read-only is not written through the
// descriptor opened before: the next call opens it again, as it always
// did, and is refused.
func TestKeptLogReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only file")
	}
	ws := newWS(t)
	log := audit.Open(ws)
	if err := log.Append(entry("first", 1)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ws.AuditPath(), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := log.Preflight(); refusal.CodeOf(err) != refusal.AuditUnavailable || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("Preflight of a read-only log = %v; want audit_unavailable, permission denied", err)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
