package trust_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// recreations is how many times the tests delete a trusted directory and
// make it again at the same path.
const recreations = 50

// modes are the two ways an entry records the directory's incarnation:
// the file system's birth time where it has one, and the marker (forced).
var modes = []struct {
	name    string
	noBirth bool
}{
	{"birth time", false},
	{"marker", true},
}

func newModeStore(t *testing.T, noBirth bool) *trust.Store {
	t.Helper()
	s, err := trust.Open(&trust.Options{Dir: filepath.Join(t.TempDir(), "cfg", "ocfetch"), Now: func() time.Time { return fixed }, IgnoreBirthTime: noBirth})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func status(t *testing.T, s *trust.Store, root string) trust.Status {
	t.Helper()
	st, err := s.Status(root)
	if err != nil {
		t.Fatalf("Status(%s): %v", root, err)
	}
	return st
}

// writeClone fills root as an attacker's clone would: a .oc_chat/ with a
// grant file and, as it likes, a trust marker of its own.
func writeClone(t *testing.T, root string, marker []byte) {
	t.Helper()
	dir := filepath.Join(root, workspace.DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, workspace.LocalFetchFile), []byte(`{"schema_version": 1, "ports": [6379]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if marker != nil {
		if err := os.WriteFile(filepath.Join(dir, trust.MarkerFile), marker, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// The done-when test of issue 20, item 6: a trusted directory deleted and
// made again at its path (`rm -rf proj && git clone evil proj`) is
// untrusted every time — also when the file system hands it the same
// inode, which ext4 does in most tries — and the store says replaced.
// With the marker, a forged marker shipped in the new .oc_chat/ does not
// restore trust.
func TestRecreatedDirectoryIsUntrusted(t *testing.T) {
	ctx := context.Background()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newModeStore(t, m.noBirth)
			root := mkdir(t, t.TempDir(), "proj")
			if err := s.Trust(ctx, root, trust.Details{How: "ocfetch trust"}); err != nil {
				t.Fatal(err)
			}
			list, err := s.List()
			if err != nil || len(list) != 1 {
				t.Fatalf("List = %v, %v", list, err)
			}
			inc := list[0].Incarnation
			switch {
			case m.noBirth && !strings.HasPrefix(inc, "marker:"):
				t.Fatalf("incarnation %q; want a marker", inc)
			case !m.noBirth && !strings.HasPrefix(inc, "birth:"):
				t.Logf("this file system records no birth time: the entry recorded %q", inc)
			}
			original, err := os.ReadFile(filepath.Join(root, workspace.DirName, trust.MarkerFile))
			if m.noBirth && err != nil {
				t.Fatalf("no marker written: %v", err)
			}
			if !trusted(t, s, root) {
				t.Fatal("not trusted after Trust")
			}
			// What an attacker can put in the new .oc_chat/: nothing of
			// the original marker (it never left this machine), so a
			// guess, a copy of the store's hash, an empty file.
			forgeries := [][]byte{
				nil,
				[]byte(strings.Repeat("ab", 32) + "\n"),
				[]byte(strings.TrimPrefix(inc, "marker:")),
				{},
				original[:len(original)/2],
			}
			before, err := os.Stat(root)
			if err != nil {
				t.Fatal(err)
			}
			reused := 0
			for i := range recreations {
				if err := os.RemoveAll(root); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(root, 0o755); err != nil {
					t.Fatal(err)
				}
				writeClone(t, root, forgeries[i%len(forgeries)])
				now, err := os.Stat(root)
				if err != nil {
					t.Fatal(err)
				}
				if os.SameFile(before, now) {
					reused++
				}
				st := status(t, s, root)
				if st.Trusted() || !st.Found || st.State != trust.Replaced {
					t.Fatalf("recreation %d (same inode: %v): Status = %+v; want found, replaced, not trusted", i+1, os.SameFile(before, now), st)
				}
				if trusted(t, s, root) {
					t.Fatalf("recreation %d: Trusted = true", i+1)
				}
				if list, _ := s.List(); list[0].State() != trust.Replaced {
					t.Fatalf("recreation %d: List state %s; want replaced", i+1, list[0].State())
				}
				if _, ok, err := s.Lookup(root); ok || err != nil {
					t.Fatalf("recreation %d: Lookup = %v, %v; want false, nil", i+1, ok, err)
				}
				before = now
			}
			t.Logf("%s: %d of %d re-created directories reused the inode of the one before", m.name, reused, recreations)

			// Trusting it again trusts the new directory, with a new marker.
			if err := s.Trust(ctx, root, trust.Details{How: "ocfetch trust"}); err != nil {
				t.Fatal(err)
			}
			if !trusted(t, s, root) {
				t.Error("not trusted after trusting the new directory")
			}
			if m.noBirth {
				if now, _ := os.ReadFile(filepath.Join(root, workspace.DirName, trust.MarkerFile)); string(now) == string(original) || string(now) == string(forgeries[len(forgeries)-1]) {
					t.Error("trusting again kept an old or shipped marker")
				}
			}
		})
	}
}

// The refusal a front end gives for a replaced directory says so, and how
// to trust the new one.
func TestReplacedRefusal(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "my proj")
	if err := s.Trust(ctx, root, trust.Details{}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	mkdir(t, root)
	file := filepath.Join(root, workspace.DirName, workspace.LocalFetchFile)
	r := status(t, s, root).Refusal(root, file, "port 6379")
	if r.Code != refusal.WorkspaceUntrusted {
		t.Errorf("code = %s; want workspace_untrusted", r.Code)
	}
	for _, want := range []string{"workspace " + root + " was replaced since it was trusted on 2026-12-01", `"port 6379" in ` + file + " was ignored"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q; want it to hold %q", r.Message, want)
		}
	}
	if want := "if you trust the new directory's files, run `ocfetch trust --root '" + root + "'`"; !strings.Contains(r.Hint, want) {
		t.Errorf("hint %q; want it to hold %q", r.Hint, want)
	}
	// No entry at all: the plain refusal.
	other := mkdir(t, t.TempDir(), "other")
	if got, want := status(t, s, other).Refusal(other, file, "port 6379"), trust.Untrusted(other, file, "port 6379"); got.Message != want.Message || got.Hint != want.Hint {
		t.Errorf("Refusal without an entry = %v; want %v", got, want)
	}
}

// A directory left alone stays trusted, call after call, while its
// contents change; with the marker, deleting the marker (or .oc_chat/)
// ends the trust.
func TestUnchangedDirectoryStaysTrusted(t *testing.T) {
	ctx := context.Background()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newModeStore(t, m.noBirth)
			root := mkdir(t, t.TempDir(), "proj")
			if err := s.Trust(ctx, root, trust.Details{}); err != nil {
				t.Fatal(err)
			}
			for i := range 200 {
				if i%20 == 0 { // what a build or a git pull does in it
					name := filepath.Join(root, "file")
					if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(root, 0o755|os.FileMode(i%2)<<6); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(root, time.Now(), time.Now().Add(-time.Hour)); err != nil {
						t.Fatal(err)
					}
					writeClone(t, root, nil)
				}
				if !trusted(t, s, root) {
					t.Fatalf("call %d: an unchanged directory is not trusted", i+1)
				}
			}
			if !m.noBirth {
				return
			}
			if err := os.Remove(filepath.Join(root, workspace.DirName, trust.MarkerFile)); err != nil {
				t.Fatal(err)
			}
			if st := status(t, s, root); st.Trusted() || st.State != trust.Replaced {
				t.Errorf("marker deleted: %+v; want replaced, not trusted", st)
			}
		})
	}
}

// An entry written by an older ocfetch (no incarnation) is read, listed,
// and trusts nothing, even for the directory it was written for: it cannot
// be told from another that reuses the inode. Trusting again upgrades it.
func TestOutdatedEntry(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "proj")
	if err := s.Trust(ctx, root, trust.Details{How: "ocfetch trust"}); err != nil {
		t.Fatal(err)
	}
	list, _ := s.List()
	old := list[0]
	old.Incarnation = ""
	doc := trust.Encode([]trust.Entry{old})
	if strings.Contains(string(doc), "incarnation") {
		t.Fatalf("an entry without an incarnation is written with one: %s", doc)
	}
	if err := os.WriteFile(s.Path(), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	st := status(t, s, root)
	if !st.Found || !st.Entry.Outdated() || st.State != trust.Present || st.Trusted() {
		t.Fatalf("Status of an older ocfetch's entry = %+v; want found, outdated, present, not trusted", st)
	}
	if trusted(t, s, root) {
		t.Error("an older ocfetch's entry trusts its directory")
	}
	r := st.Refusal(root, "/f", "port 1")
	if !strings.Contains(r.Message, "was trusted by an older ocfetch, which did not record which directory it was") || !strings.Contains(r.Hint, "`ocfetch trust --root "+root+"` again") {
		t.Errorf("refusal = %v; want it to say an older ocfetch trusted it, and to run ocfetch trust again", r)
	}
	if err := s.Trust(ctx, root, trust.Details{How: "ocfetch trust"}); err != nil {
		t.Fatal(err)
	}
	if !trusted(t, s, root) {
		t.Error("not trusted after trusting again")
	}
	if list, _ := s.List(); len(list) != 1 || list[0].Outdated() {
		t.Errorf("after trusting again: %+v; want one entry with an incarnation", list)
	}
}

// The marker is written through securefile: a .oc_chat/ that is a symlink
// is refused, nothing is written through it, and nothing is trusted.
func TestMarkerNotThroughSymlink(t *testing.T) {
	ctx := context.Background()
	s := newModeStore(t, true)
	root := mkdir(t, t.TempDir(), "proj")
	elsewhere := mkdir(t, t.TempDir(), "elsewhere")
	if err := os.Symlink(elsewhere, filepath.Join(root, workspace.DirName)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := s.Trust(ctx, root, trust.Details{}); refusal.CodeOf(err) != refusal.WorkspaceInvalid {
		t.Errorf("Trust with a symlinked .oc_chat = %v; want workspace_invalid", err)
	}
	if names, _ := os.ReadDir(elsewhere); len(names) != 0 {
		t.Errorf("written through the symlink: %v", names)
	}
	if trusted(t, s, root) {
		t.Error("trusted without a marker")
	}
}

// EnsureWorkspace with the marker: the .oc_chat/ it creates holds the
// marker, is trusted, and a .oc_chat/ holding only ocfetch's files and a
// stale marker is still ocfetch's own.
func TestEnsureWorkspaceMarker(t *testing.T) {
	ctx := context.Background()
	s := newModeStore(t, true)
	ws := workspace.Workspace{Root: mkdir(t, t.TempDir(), "fresh")}
	if created, err := s.EnsureWorkspace(ctx, ws, "ocfetch rules allow"); !created || err != nil {
		t.Fatalf("EnsureWorkspace = %v, %v; want true, nil", created, err)
	}
	if !trusted(t, s, ws.Root) {
		t.Fatal("not trusted")
	}
	if _, err := s.Revoke(ctx, ws.Root); err != nil {
		t.Fatal(err)
	}
	if created, err := s.EnsureWorkspace(ctx, ws, "ocfetch rules allow"); !created || err != nil {
		t.Errorf("EnsureWorkspace over a stale marker = %v, %v; want true, nil", created, err)
	}
	if !trusted(t, s, ws.Root) {
		t.Error("not trusted again")
	}
	// A store that cannot be written: the .oc_chat/ this call made goes
	// again, marker and all.
	other := workspace.Workspace{Root: mkdir(t, t.TempDir(), "other")}
	if err := os.Chmod(filepath.Dir(s.Path()), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Dir(s.Path()), 0o700)
	if probe := filepath.Join(filepath.Dir(s.Path()), "probe"); os.WriteFile(probe, nil, 0o600) == nil {
		os.Remove(probe)
		t.Skip("the configuration directory stays writable (running as root)")
	}
	if _, err := s.EnsureWorkspace(ctx, other, "x"); err == nil {
		t.Error("EnsureWorkspace with a store that cannot be written succeeded")
	}
	if _, err := os.Lstat(other.Dir()); err == nil {
		t.Error(".oc_chat exists after a failed EnsureWorkspace")
	}
}
