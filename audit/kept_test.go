package audit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/securefile"
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

// TestUnchangedLogCostsNoCheck: where change notification covers the
// log's path (Linux, a local file system), a call whose log nothing
// changed proves it writable and writes its line with no stat — neither
// the preflight's nor the append's — so a benchmark of the call path
// measures that path, not the stat fallback. Every line reaches the file.
func TestUnchangedLogCostsNoCheck(t *testing.T) {
	ws := newWS(t)
	log := audit.Open(ws)
	call := func(i int) {
		ctx := securefile.WithCall(context.Background(), securefile.NewCall())
		if err := log.PreflightContext(ctx); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(entry("call", i)); err != nil {
			t.Fatal(err)
		}
	}
	call(0) // opens and keeps the descriptor, places the watches
	const calls = 20
	before := securefile.Checks()
	for i := 1; i <= calls; i++ {
		call(i)
	}
	n := securefile.Checks() - before
	notified := securefile.Watch(nil, ws.Dir(), true).ValidIn(nil)
	if notified && n != 0 {
		t.Fatalf("%d calls on an unchanged log made %d checks; want 0", calls, n)
	}
	if !notified && n == 0 {
		t.Fatalf("%d calls made no check where nothing is notified", calls)
	}
	if got := strings.Count(readFile(t, ws.AuditPath()), "\n"); got != calls+1 {
		t.Fatalf("the log holds %d lines; want %d", got, calls+1)
	}
}
