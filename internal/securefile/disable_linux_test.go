package securefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// inotifyFDs counts this process's inotify descriptors.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestDisableNotification: after DisableNotification no Stamp is valid —
// one taken before it included — no watch is placed and the inotify
// descriptor is closed, so every snapshot is checked with stats. It runs
// in a child process, since it cannot be undone.
func TestDisableNotification(t *testing.T) {
	if os.Getenv("SECUREFILE_TEST_DISABLE") == "1" {
		dir := t.TempDir()
		before := Watch(nil, dir, true)
		if !before.ValidIn(nil) || inotifyFDs(t) != 1 {
			t.Fatalf("before: Stamp valid %v, %d inotify descriptors; want valid and 1", before.ValidIn(nil), inotifyFDs(t))
		}
		DisableNotification()
		if before.ValidIn(nil) {
			t.Error("a Stamp taken before DisableNotification is still valid")
		}
		if s := Watch(nil, filepath.Join(dir, "x"), false); s.ValidIn(nil) {
			t.Error("a Stamp taken after DisableNotification is valid")
		}
		if n := inotifyFDs(t); n != 0 {
			t.Errorf("%d inotify descriptors open after DisableNotification; want 0", n)
		}
		return
	}
	requireNotify(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDisableNotification$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "SECUREFILE_TEST_DISABLE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
