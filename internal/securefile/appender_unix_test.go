//go:build unix

package securefile

import (
	"os"
	"path/filepath"
	"testing"
)

// keptLog opens base/ws/.oc_chat/audit.jsonl for append and keeps its
// descriptor, as the audit log does; where this process is root (whom
// every mode lets write) the file is given to another uid, which the
// test then runs as (geteuid), so that a mode or owner change is one the
// check must refuse.
func keptLog(t *testing.T) (base, dir, path string) {
	t.Helper()
	base = t.TempDir()
	dir = filepath.Join(base, "ws", ".oc_chat")
	path = filepath.Join(dir, "audit.jsonl")
	must(t, os.MkdirAll(dir, 0o755))
	f, err := OpenAppend(path, 0o600)
	must(t, err)
	if os.Geteuid() == 0 {
		const uid = 4242
		must(t, os.Chown(path, uid, 0))
		old := geteuid
		geteuid = func() int { return uid }
		t.Cleanup(func() { geteuid = old })
	}
	Keep(path, f)
	t.Cleanup(func() { forgetKept(path) })
	return base, dir, path
}

// forgetKept closes and drops the descriptor kept for path.
func forgetKept(path string) {
	appenders.mu.Lock()
	a := appenders.m[path]
	delete(appenders.m, path)
	appenders.mu.Unlock()
	if a != nil {
		a.close()
	}
}

func appendKept(t *testing.T, path, line string) bool {
	t.Helper()
	ok, err := AppendKept(path, []byte(line))
	must(t, err)
	return ok
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// keptChanges are the changes to a kept log, its directory or a directory
// above that the appender must see. old is where the file the descriptor
// writes is found after the change ("" where it is gone); kept is whether
// a descriptor check after the change still vouches for it (AppendKept
// checks the name, not the directory: a kept descriptor writes only the
// file that was checked, so a directory turned into a symlink to itself
// still leads there).
var keptChanges = []struct {
	name       string
	change     func(t *testing.T, base, dir, path string)
	old        string // relative to base
	readyAfter bool   // KeptReadyIn in the next call
	appendIn   bool   // AppendKept when the change came during the call
}{
	{"replaced", func(t *testing.T, _, dir, path string) {
		write(t, filepath.Join(dir, "new"), "")
		must(t, os.Rename(filepath.Join(dir, "new"), path))
	}, "", false, false},
	{"renamed away (rotated)", func(t *testing.T, _, _, path string) {
		must(t, os.Rename(path, path+".1"))
	}, "ws/.oc_chat/audit.jsonl.1", false, false},
	{"deleted", func(t *testing.T, _, _, path string) {
		must(t, os.Remove(path))
	}, "", false, false},
	{"made a symlink to itself", func(t *testing.T, _, _, path string) {
		must(t, os.Rename(path, path+".real"))
		mustSymlink(t, path+".real", path)
	}, "ws/.oc_chat/audit.jsonl.real", false, false},
	{"chmod-ed read-only", func(t *testing.T, _, _, path string) {
		must(t, os.Chmod(path, 0o400))
	}, "ws/.oc_chat/audit.jsonl", false, false},
	{"given to another user", func(t *testing.T, _, _, path string) {
		if err := os.Chown(path, 4343, 0); err != nil {
			t.Skip("chown:", err)
		}
	}, "ws/.oc_chat/audit.jsonl", false, false},
	{"its directory replaced", func(t *testing.T, _, dir, path string) {
		must(t, os.Rename(dir, dir+".old"))
		must(t, os.Mkdir(dir, 0o755))
		write(t, path, "")
	}, "ws/.oc_chat.old/audit.jsonl", false, false},
	{"a directory above replaced", func(t *testing.T, base, _, path string) {
		must(t, os.Rename(filepath.Join(base, "ws"), filepath.Join(base, "ws.old")))
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		write(t, path, "")
	}, "ws.old/.oc_chat/audit.jsonl", false, false},
	{"its directory made a symlink to itself", func(t *testing.T, _, dir, _ string) {
		must(t, os.Rename(dir, dir+".real"))
		mustSymlink(t, dir+".real", dir)
	}, "ws/.oc_chat.real/audit.jsonl", false, true},
}

// TestKeptSeesChangeBetweenCalls: a change made between two calls is
// seen by the second call's check of the kept descriptor, with change
// notification and with stats; nothing is written to the old file.
func TestKeptSeesChangeBetweenCalls(t *testing.T) {
	for _, tc := range keptChanges {
		t.Run(tc.name, func(t *testing.T) {
			bothPaths(t, func(t *testing.T) {
				base, dir, path := keptLog(t)
				call := NewCall()
				if !KeptReadyIn(call, path) || !appendKept(t, path, "one\n") {
					t.Fatal("a kept log just opened is not ready")
				}
				if !KeptReadyIn(NewCall(), path) || !appendKept(t, path, "two\n") {
					t.Fatal("an unchanged kept log is not ready")
				}
				tc.change(t, base, dir, path)
				if got := KeptReadyIn(NewCall(), path); got != tc.readyAfter {
					t.Fatalf("KeptReadyIn after the change = %v; want %v", got, tc.readyAfter)
				}
				want := "one\ntwo\n"
				if tc.appendIn {
					want += "three\n"
				}
				if got := appendKept(t, path, "three\n"); got != tc.appendIn {
					t.Fatalf("AppendKept after the change = %v; want %v", got, tc.appendIn)
				}
				if tc.old != "" {
					if got := readText(t, filepath.Join(base, tc.old)); got != want {
						t.Fatalf("the old file holds %q; want %q", got, want)
					}
				}
			})
		})
	}
}

// TestKeptSeesChangeDuringCall: a change made after a call's check of the
// kept descriptor (the preflight) and before its line is written is seen
// by the append, with change notification and with stats: the line is
// not written to the old file.
func TestKeptSeesChangeDuringCall(t *testing.T) {
	for _, tc := range keptChanges {
		t.Run(tc.name, func(t *testing.T) {
			bothPaths(t, func(t *testing.T) {
				base, dir, path := keptLog(t)
				if !KeptReadyIn(NewCall(), path) || !appendKept(t, path, "one\n") {
					t.Fatal("a kept log just opened is not ready")
				}
				if !KeptReadyIn(NewCall(), path) {
					t.Fatal("an unchanged kept log is not ready")
				}
				tc.change(t, base, dir, path)
				want := "one\n"
				if tc.appendIn {
					want = "one\ntwo\n"
				}
				if got := appendKept(t, path, "two\n"); got != tc.appendIn {
					t.Fatalf("AppendKept after the change = %v; want %v", got, tc.appendIn)
				}
				if tc.old != "" {
					if got := readText(t, filepath.Join(base, tc.old)); got != want {
						t.Fatalf("the old file holds %q; want %q", got, want)
					}
				}
			})
		})
	}
}

// TestKeptUnchangedCostsNoCheck: with change notification, a call whose
// log nothing changed checks and writes it with no stat — our own appends
// do not count as a change — while the stat path checks it every call.
func TestKeptUnchangedCostsNoCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notified bool
	}{{"notified", true}, {"stats", false}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.notified {
				requireNotify(t)
			} else {
				withoutNotify(t)
			}
			_, _, path := keptLog(t)
			if !KeptReadyIn(NewCall(), path) || !appendKept(t, path, "0\n") {
				t.Fatal("a kept log just opened is not ready")
			}
			const calls = 20
			n := checksOf(func() {
				for range calls {
					if !KeptReadyIn(NewCall(), path) || !appendKept(t, path, "x\n") {
						t.Fatal("an unchanged kept log is not ready")
					}
				}
			})
			if tc.notified && n != 0 {
				t.Fatalf("an unchanged log cost %d checks in %d calls; want 0", n, calls)
			}
			if !tc.notified && n < 2*calls {
				t.Fatalf("the stat path made %d checks in %d calls; want 2 a call", n, calls)
			}
			if got := len(readText(t, path)); got != 2+2*calls {
				t.Fatalf("the log holds %d bytes; want %d", got, 2+2*calls)
			}
		})
	}
}

// TestAppendedSnapshotFile: a file both read as a snapshot and appended
// to through a kept descriptor, whichever use watched it first, keeps the
// events of each: the snapshot sees every append, the appender's check
// is not spent by them.
func TestAppendedSnapshotFile(t *testing.T) {
	for _, tc := range []struct {
		name          string
		snapshotFirst bool
	}{{"snapshot first", true}, {"appender first", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bothPaths(t, func(t *testing.T) {
				c, _ := withMode(t)
				var path string
				if tc.snapshotFirst {
					dir := filepath.Join(t.TempDir(), "ws", ".oc_chat")
					path = filepath.Join(dir, "audit.jsonl")
					must(t, os.MkdirAll(dir, 0o755))
					write(t, path, "a")
					must(t, os.Chmod(path, 0o600))
					loadIn(t, c, NewCall(), path, "a 600")
					loadIn(t, c, NewCall(), path, "a 600")
					f, err := OpenAppend(path, 0o600)
					must(t, err)
					Keep(path, f)
					t.Cleanup(func() { forgetKept(path) })
				} else {
					_, _, path = keptLog(t)
					if !KeptReadyIn(NewCall(), path) || !appendKept(t, path, "a") {
						t.Fatal("a kept log just opened is not ready")
					}
					loadIn(t, c, NewCall(), path, "a 600")
				}
				want := "a"
				for _, line := range []string{"b", "c"} {
					if !KeptReadyIn(NewCall(), path) {
						t.Fatal("an unchanged kept log is not ready")
					}
					if !appendKept(t, path, line) {
						t.Fatal("an unchanged kept log was not written")
					}
					want += line
					loadIn(t, c, NewCall(), path, want+" 600")
					if n := checksOf(func() { KeptReadyIn(NewCall(), path) }); !notifier.off.Load() && n != 0 {
						t.Fatalf("an append cost the appender %d checks on the next call; want 0", n)
					}
				}
			})
		})
	}
}

// TestMergeNeverNarrows: the kind a node is watched as only widens while
// its inode is the same: content events, once a snapshot needs them, are
// kept when the appender asks for its narrower watch.
func TestMergeNeverNarrows(t *testing.T) {
	for _, tc := range []struct{ have, want, got watchKind }{
		{watchFile, watchAppend, watchFile},
		{watchAppend, watchFile, watchFile},
		{watchAppend, watchAppend, watchAppend},
		{watchFile, watchFile, watchFile},
		{watchDir, watchDir, watchDir},
		{watchDir, watchFile, watchFile},
		{watchFile, watchDir, watchDir},
		{watchAppend, watchDir, watchDir},
	} {
		if got := merge(tc.have, tc.want); got != tc.got {
			t.Errorf("merge(%d, %d) = %d; want %d", tc.have, tc.want, got, tc.got)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	must(t, os.Symlink(target, link))
}
