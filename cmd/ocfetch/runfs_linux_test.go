//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScriptRunFSUnprivileged runs the run_fs script again as the user
// nobody (uid 65534), the path an ordinary user takes: the sandbox in a
// user namespace of its own, the mounts made without any privilege on the
// host. It skips where this process is not root (it cannot change its
// uid; the script already ran as this user) or the kernel refuses
// unprivileged user namespaces.
func TestScriptRunFSUnprivileged(t *testing.T) {
	if os.Getenv("OCFETCH_SCRIPT_INNER") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: TestScripts already ran run_fs as this user")
	}
	for _, tool := range []string{"curl", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A directory nobody may enter (t.TempDir's parent is private).
	dir, err := os.MkdirTemp("", "ocfetch-runfs-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ocfetch.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// The inner run reads testdata/script from a copy nobody can read.
	if err := os.CopyFS(filepath.Join(dir, "testdata"), os.DirFS(filepath.Join(wd, "testdata"))); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != tmp && !strings.HasPrefix(p, tmp+"/") {
			os.Chmod(p, map[bool]os.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
		}
		return nil
	})
	os.Chmod(bin, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.v", "-test.count=1", "-test.run=^TestScripts$/^run_fs$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OCFETCH_SCRIPT_INNER=1", "TMPDIR="+tmp, "HOME="+tmp, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "sandbox_unavailable") {
		t.Skipf("the kernel refuses the unprivileged sandbox here:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestScripts/run_fs") {
		t.Fatalf("run_fs as uid 65534: %v\n%s", err, out)
	}
}
