package securefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// notifies reports whether change notification works here (Linux with
// inotify, a local file system under the test's temporary directory).
func notifies(t *testing.T) bool {
	t.Helper()
	dir := t.TempDir()
	return Watch(nil, dir, true).ValidIn(nil)
}

// requireNotify skips the test where nothing is notified.
func requireNotify(t *testing.T) {
	t.Helper()
	if !notifies(t) {
		t.Skip("no change notification here: every snapshot is checked with stats")
	}
}

// withoutNotify turns change notification off for the test: every
// snapshot is checked with stats, as on a system without it.
func withoutNotify(t *testing.T) {
	t.Helper()
	notifier.off.Store(true)
	t.Cleanup(func() { notifier.off.Store(false) })
}

// bothPaths runs test with change notification (where there is one) and
// without it: the stat path every other system takes.
func bothPaths(t *testing.T, test func(t *testing.T)) {
	t.Run("notified", func(t *testing.T) {
		requireNotify(t)
		test(t)
	})
	t.Run("stats", func(t *testing.T) {
		withoutNotify(t)
		test(t)
	})
}

// withMode is a cache whose value is the file's text and permission bits.
func withMode(t *testing.T) (*Cache[string], *int) {
	t.Helper()
	n := new(int)
	var mu sync.Mutex
	c := NewCache(64, 8, func(_ string, data []byte, fi fs.FileInfo, err error) (string, error) {
		mu.Lock()
		*n++
		mu.Unlock()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %o", data, fi.Mode().Perm()), nil
	})
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // snapshots trusted by stats too
	return c, n
}

// checksOf runs f and returns how many identity checks it made.
func checksOf(f func()) uint64 {
	before := Checks()
	f()
	return Checks() - before
}

// TestNotifiedEditSeenByNextCall: with change notification, a call that
// finds nothing changed makes no system call but the poll, and every
// change made between two calls — to the file, through another of its
// names, to its directory or to a directory above — is seen by the
// second call, with the error an uncached read gives. Nothing sleeps: the
// kernel queues the report before the change's system call returns.
func TestNotifiedEditSeenByNextCall(t *testing.T) {
	requireNotify(t)
	forged := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, base, dir, path string)
		want    string
		wantErr error
	}{
		{"same-size rewrite in place, mtime forged", func(t *testing.T, _, _, path string) {
			rewriteInPlace(t, path, "b", forged)
		}, "b 644", nil},
		{"renamed over", func(t *testing.T, _, _, path string) {
			must(t, WriteFile(path, []byte("b"), 0o644))
		}, "b 644", nil},
		{"deleted", func(t *testing.T, _, _, path string) {
			must(t, os.Remove(path))
		}, "", fs.ErrNotExist},
		{"written through a hard link in another directory", func(t *testing.T, base, _, _ string) {
			rewriteInPlace(t, filepath.Join(base, "elsewhere", "link"), "b", forged)
		}, "b 644", nil},
		{"chmod", func(t *testing.T, _, _, path string) {
			must(t, os.Chmod(path, 0o600))
		}, "a 600", nil},
		{"looked up as a directory, then written in place", func(t *testing.T, _, _, path string) {
			// Another reader takes the file for a directory (a file
			// under it): its watch cannot be placed as a directory's.
			other, _ := withMode(t)
			if _, err := other.LoadIn(NewCall(), filepath.Join(path, "x.json")); !errors.Is(err, ErrNotDir) {
				t.Fatalf("a file under a file: %v; want ErrNotDir", err)
			}
			writeInPlace(t, path, "bb") // no attribute changed: only the file's own watch reports it
		}, "bb 644", nil},
		{"ancestor renamed and replaced", func(t *testing.T, base, _, _ string) {
			top := filepath.Join(base, "top")
			must(t, os.Rename(top, top+".old"))
			must(t, os.MkdirAll(filepath.Join(top, "ws", ".oc_chat"), 0o755))
			write(t, filepath.Join(top, "ws", ".oc_chat", "f.json"), "c")
		}, "c 644", nil},
		{"directory turned into a symlink", func(t *testing.T, base, dir, _ string) {
			must(t, os.Rename(dir, dir+".old"))
			must(t, os.Symlink(dir+".old", dir))
		}, "", ErrSymlink},
		{"directory chmod", func(t *testing.T, _, dir, path string) {
			must(t, os.Chmod(dir, 0o700))
			must(t, WriteFile(path, []byte("d"), 0o644)) // seen through the handle checked again
		}, "d 644", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "top", "ws", ".oc_chat")
			must(t, os.MkdirAll(dir, 0o755))
			path := filepath.Join(dir, "f.json")
			write(t, path, "a")
			must(t, os.Chtimes(path, forged, forged))
			// A second name of the file, in a directory nothing watches.
			must(t, os.Mkdir(filepath.Join(base, "elsewhere"), 0o755))
			must(t, os.Link(path, filepath.Join(base, "elsewhere", "link")))
			c, _ := withMode(t)
			loadIn(t, c, NewCall(), path, "a 644")
			loadIn(t, c, NewCall(), path, "a 644")
			if n := checksOf(func() { loadIn(t, c, NewCall(), path, "a 644") }); n != 0 {
				t.Fatalf("an unchanged file cost %d checks per call; want 0", n)
			}
			tc.change(t, base, dir, path)
			got, err := c.LoadIn(NewCall(), path)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("next call: %q, %v; want %v", got, err, tc.wantErr)
				}
				if _, rerr := ReadFile(path, 64); rerr == nil || rerr.Error() != err.Error() {
					t.Errorf("cached: %v; ReadFile: %v", err, rerr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("next call: %q, %v; want %q", got, err, tc.want)
			}
			// Settled: the next call is free again.
			loadIn(t, c, NewCall(), path, tc.want)
			if n := checksOf(func() { loadIn(t, c, NewCall(), path, tc.want) }); n != 0 {
				t.Errorf("after the change an unchanged file cost %d checks per call; want 0", n)
			}
		})
	}
}

// TestNotifiedChangeElsewhereKeepsStamp: a change to another file, in
// another directory, is seen by the call after it, and leaves a file it
// does not concern valid with no check: only a Stamp whose own path
// changed is checked again.
func TestNotifiedChangeElsewhereKeepsStamp(t *testing.T) {
	requireNotify(t)
	base := t.TempDir()
	for _, d := range []string{"a", "b"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
		write(t, filepath.Join(base, d, "f.json"), d)
	}
	pathA, pathB := filepath.Join(base, "a", "f.json"), filepath.Join(base, "b", "f.json")
	c, _ := withMode(t)
	for range 2 {
		call := NewCall()
		loadIn(t, c, call, pathA, "a 644")
		loadIn(t, c, call, pathB, "b 644")
	}
	must(t, WriteFile(pathB, []byte("B"), 0o644))
	call := NewCall()
	if n := checksOf(func() { loadIn(t, c, call, pathA, "a 644") }); n != 0 {
		t.Errorf("a file in another directory than the change cost %d checks; want 0", n)
	}
	loadIn(t, c, call, pathB, "B 644")
	// A change elsewhere, then one on the Stamp's own path, before the
	// same next call: the walk finds the second.
	must(t, WriteFile(pathB, []byte("BB"), 0o644))
	must(t, WriteFile(pathA, []byte("A"), 0o644))
	call = NewCall()
	loadIn(t, c, call, pathA, "A 644")
	loadIn(t, c, call, pathB, "BB 644")
}

// TestNotifiedMissingFileAppears: a missing file, and a missing
// directory, are answered with no system call but the poll until they
// appear; the call after they appear reads them.
func TestNotifiedMissingFileAppears(t *testing.T) {
	requireNotify(t)
	base := t.TempDir()
	dir := filepath.Join(base, "ocfetch")
	path := filepath.Join(dir, "policy.json")
	c, _ := withMode(t)
	missing := func() {
		t.Helper()
		if _, err := c.LoadIn(NewCall(), path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Load = %v; want fs.ErrNotExist", err)
		}
	}
	missing()
	missing()
	if n := checksOf(missing); n != 0 {
		t.Errorf("a missing directory cost %d checks per call; want 0", n)
	}
	must(t, os.Mkdir(dir, 0o755))
	missing()
	missing()
	if n := checksOf(missing); n != 0 {
		t.Errorf("a missing file cost %d checks per call; want 0", n)
	}
	write(t, path, "x")
	loadIn(t, c, NewCall(), path, "x 644")
}

// lossyKernel loses every report: with overflow it says so (as the kernel
// does when its queue overflows), without it the loss is silent.
type lossyKernel struct {
	kernel
	overflow bool
}

func (k lossyKernel) drain(f func(int32, []byte, bool, bool)) error {
	err := k.kernel.drain(func(int32, []byte, bool, bool) {})
	if k.overflow {
		f(-1, nil, false, false)
	}
	return err
}

// TestNotifiedOverflowChecksEverything: when the kernel's queue overflows
// (the reports are lost, and it says so), every snapshot is checked with
// stats on the next call, so an edit whose report was lost is still seen.
func TestNotifiedOverflowChecksEverything(t *testing.T) {
	requireNotify(t)
	base := t.TempDir()
	path := filepath.Join(base, "rules.json")
	write(t, path, "a")
	c, _ := withMode(t)
	loadIn(t, c, NewCall(), path, "a 644")
	loadIn(t, c, NewCall(), path, "a 644")

	notifier.mu.Lock()
	real := notifier.k
	notifier.k = lossyKernel{kernel: real, overflow: true}
	notifier.mu.Unlock()
	t.Cleanup(func() {
		notifier.mu.Lock()
		notifier.k = real
		notifier.mu.Unlock()
	})
	must(t, WriteFile(path, []byte("b"), 0o644)) // its report is lost
	loadIn(t, c, NewCall(), path, "b 644")
}

// TestUnreliableFileSystemUsesStats: on a file system whose reports are
// not relied on (NFS, FUSE, overlayfs, unknown), nothing is watched: every
// call checks the file with stats, and an edit is seen by the next call.
func TestUnreliableFileSystemUsesStats(t *testing.T) {
	requireNotify(t)
	base := t.TempDir()
	restore := markUnreliable(base)
	t.Cleanup(restore)
	dir := filepath.Join(base, "cfg")
	must(t, os.Mkdir(dir, 0o755))
	path := filepath.Join(dir, "rules.json")
	write(t, path, "a")
	c, _ := withMode(t)
	loadIn(t, c, NewCall(), path, "a 644")
	if n := checksOf(func() { loadIn(t, c, NewCall(), path, "a 644") }); n == 0 {
		t.Error("a file on an unreliable file system was not checked")
	}
	must(t, WriteFile(path, []byte("b"), 0o644))
	loadIn(t, c, NewCall(), path, "b 644")
}

// TestNotifiedWatchesBounded: past maxNodes the least recently used
// nodes are dropped with their watches, and what depended on them is
// checked with stats again (and still right).
func TestNotifiedWatchesBounded(t *testing.T) {
	requireNotify(t)
	base := t.TempDir()
	c, _ := withMode(t)
	first := filepath.Join(base, "first")
	write(t, first, "a")
	loadIn(t, c, NewCall(), first, "a 644")
	for i := range maxNodes + 10 {
		Watch(nil, filepath.Join(base, fmt.Sprint("missing-", i)), false)
	}
	notifier.mu.Lock()
	n := notifier.nodes
	notifier.mu.Unlock()
	if n > maxNodes {
		t.Errorf("%d nodes kept; want at most %d", n, maxNodes)
	}
	must(t, WriteFile(first, []byte("b"), 0o644))
	loadIn(t, c, NewCall(), first, "b 644")
}

// TestCallPollsOnce: a call drains the reports once, whatever it loads;
// Renew drains them again.
func TestCallPollsOnce(t *testing.T) {
	requireNotify(t)
	call := NewCall()
	before := notifier.tick.Load()
	call.sync()
	call.sync()
	if d := notifier.tick.Load() - before; d != 1 {
		t.Errorf("%d polls in one call; want 1", d)
	}
	call.Renew()
	call.sync()
	if d := notifier.tick.Load() - before; d != 2 {
		t.Errorf("%d polls after Renew; want 2", d)
	}
}

// writeInPlace writes data over path (truncated) without changing its
// inode or setting its times, as `echo data > path` does.
func writeInPlace(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.WriteString(data)
	must(t, err)
	must(t, f.Close())
}

// markUnreliable makes the file systems under dir count as unreliable;
// the returned function restores the check.
func markUnreliable(dir string) func() {
	notifier.mu.Lock()
	defer notifier.mu.Unlock()
	old := reliableFS
	reliableFS = func(path string) bool {
		if path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return false
		}
		return old(path)
	}
	return func() {
		notifier.mu.Lock()
		reliableFS = old
		notifier.mu.Unlock()
	}
}
