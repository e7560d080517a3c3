//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

// mountedName is the name this test binary runs under to be ocfetch in a
// mount namespace of its own: it bind-mounts $OCFETCH_TEST_MOUNT_SRC at
// $OCFETCH_TEST_MOUNT_DST (in its namespace only), changes into the
// mount point, and executes itself as "ocfetch" with its arguments — a
// container's view of a workspace mounted from the host at another path.
const mountedName = "ocfetch-mounted"

func mountedMain() {
	src, dst := os.Getenv("OCFETCH_TEST_MOUNT_SRC"), os.Getenv("OCFETCH_TEST_MOUNT_DST")
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", mountedName, err)
		os.Exit(125)
	}
	// The namespace is the thread's: it must be the one that executes.
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		fail(err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fail(err)
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		fail(err)
	}
	if err := unix.Chdir(dst); err != nil {
		fail(err)
	}
	exe, err := os.Executable()
	if err != nil {
		fail(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCFETCH_TEST_MOUNT_") {
			env = append(env, kv)
		}
	}
	fail(syscall.Exec(exe, append([]string{"ocfetch"}, os.Args[1:]...), env))
}

// containerWorkspace returns how a process reaches the workspace tree at
// src under the path dst, as a container with `-v src:dst` does: as root,
// a bind mount in a mount namespace that only the process sees (the
// returned argv0 is mountedName and env names the mount); else a copy of
// the tree at dst (directories and regular files, no symlinks), which is
// as new a directory to the trust store as a mount point is.
func containerWorkspace(t *testing.T, src, dst string) (argv0 string, env []string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		probe := exec.Command(testBinary(t), "version")
		probe.Args[0] = mountedName
		probe.Env = append(os.Environ(), "OCFETCH_TEST_MOUNT_SRC="+src, "OCFETCH_TEST_MOUNT_DST="+dst)
		if out, err := probe.CombinedOutput(); err == nil {
			t.Logf("the workspace %s is bind-mounted at %s in each process's own mount namespace", src, dst)
			return mountedName, []string{"OCFETCH_TEST_MOUNT_SRC=" + src, "OCFETCH_TEST_MOUNT_DST=" + dst}
		} else {
			t.Logf("no mount namespace (%v: %s); copying the workspace instead", err, out)
		}
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o600)
		}
		return fmt.Errorf("%s is neither a directory nor a regular file", p)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the workspace %s is copied to %s", src, dst)
	return "ocfetch", nil
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// containerProxy is `ocfetch proxy` running as its own process.
type containerProxy struct {
	cmd    *exec.Cmd
	addr   string
	stderr testio.SyncBuffer
	done   chan error
}

// startContainerProxy starts `ocfetch ARGS…` (a proxy) as argv0 with env
// added, the user configuration directory configDir, and returns once
// it says where it listens; or, when it exits first, its exit code and
// stderr.
func startContainerProxy(t *testing.T, argv0, dir, configDir string, env []string, args ...string) (*containerProxy, int) {
	t.Helper()
	p := &containerProxy{done: make(chan error, 1)}
	p.cmd = exec.Command(testBinary(t), args...)
	p.cmd.Args[0] = argv0
	p.cmd.Dir = dir
	p.cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(configDir), "XDG_CONFIG_HOME=" + filepath.Dir(configDir),
		"GORACE=atexit_sleep_ms=0", "GOCOVERDIR=" + os.Getenv("GOCOVERDIR"),
	}, env...)
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		sent := false
		for sc.Scan() {
			fmt.Fprintln(&p.stderr, sc.Text())
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				sent = true
				found <- m[1]
			}
		}
		close(found)
		p.done <- p.cmd.Wait()
	}()
	select {
	case addr, ok := <-found:
		if ok {
			p.addr = addr
			t.Cleanup(func() { p.stop(t) })
			return p, -1
		}
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("ocfetch %v did not start", args)
	}
	err = <-p.done
	if ee, ok := err.(*exec.ExitError); ok {
		return p, ee.ExitCode()
	}
	t.Fatalf("ocfetch %v: %v", args, err)
	return p, 0
}

// stop sends SIGTERM (the proxy stops on it) and waits.
func (p *containerProxy) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("the proxy did not stop on SIGTERM")
	}
}

// get sends one GET for target through the proxy and returns the status
// and X-Ocfetch-Reason.
func (p *containerProxy) get(t *testing.T, target string) (int, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: p.addr})}, Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Get(target)
	if err != nil {
		t.Fatalf("GET %s through the proxy: %v", target, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("X-Ocfetch-Reason")
}

// TestContainerTrustRoot runs `ocfetch proxy` as a separate process the way
// the container recipe does: the workspace (local port and allow rule in
// its .oc_chat/, trusted on the host at its host path) reached at another
// path, the current directory. There it is a new directory, untrusted,
// until the operator names it with --trust-root or OCFETCH_TRUST_ROOT;
// a different root is refused at start.
func TestContainerTrustRoot(t *testing.T) {
	s := newSite(t)
	host := localRoot(t, s) // trusted at its host path
	configDir := testLayers(t).configDir
	mnt := filepath.Join(newUntrustedRoot(t), "work")
	argv0, env := containerWorkspace(t, host, mnt)
	base := []string{"--profile", "permissive", "proxy", "--listen", "127.0.0.1:0", "--auth", "none"}
	// Where the processes' audit lines land, seen from this test: the
	// host tree under a bind mount, the copy otherwise.
	auditLog := filepath.Join(mnt, ".oc_chat", "audit.jsonl")
	if argv0 == mountedName {
		auditLog = filepath.Join(host, ".oc_chat", "audit.jsonl")
	}

	tests := []struct {
		name   string
		env    []string
		args   []string
		exit   int // -1: serves
		status int
		reason string
		stderr string
		// trustedBy is the audit line's trusted_by.
		trustedBy string
	}{
		{name: "untrusted without the flag", exit: -1, status: http.StatusForbidden, reason: "workspace_untrusted"},
		{name: "--trust-root", args: []string{"--trust-root", mnt}, exit: -1, status: http.StatusOK,
			stderr: "trusting the workspace " + mnt + " for this process (--trust-root)", trustedBy: "trust_root"},
		{name: "OCFETCH_TRUST_ROOT", env: []string{"OCFETCH_TRUST_ROOT=" + mnt + "/"}, exit: -1, status: http.StatusOK,
			stderr: "trusting the workspace " + mnt + " for this process (OCFETCH_TRUST_ROOT)", trustedBy: "trust_root"},
		{name: "a different root", args: []string{"--trust-root", host}, exit: exitUsage,
			stderr: "is not the workspace root " + mnt},
		{name: "the parent of the root", env: []string{"OCFETCH_TRUST_ROOT=" + filepath.Dir(mnt)}, exit: exitUsage,
			stderr: "is not the workspace root " + mnt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, code := startContainerProxy(t, argv0, mnt, configDir, append(append([]string(nil), env...), tc.env...), append(base, tc.args...)...)
			if code != tc.exit {
				t.Fatalf("exit %d; want %d\nstderr:\n%s", code, tc.exit, p.stderr.String())
			}
			if tc.exit == -1 {
				before, lines := len(s.requests()), auditCount(auditLog)
				status, reason := p.get(t, s.url("/"))
				if status != tc.status || reason != tc.reason {
					t.Errorf("GET through the proxy = %d %q; want %d %q\nstderr:\n%s", status, reason, tc.status, tc.reason, p.stderr.String())
				}
				if forwarded := len(s.requests()) - before; (tc.status == http.StatusOK) != (forwarded == 1) {
					t.Errorf("%d requests reached the site; want %v", forwarded, tc.status == http.StatusOK)
				}
				if !strings.Contains(p.stderr.String(), "(workspace "+mnt+",") {
					t.Errorf("the proxy does not name the workspace %s:\n%s", mnt, p.stderr.String())
				}
				// The line is written when the exchange ends.
				for deadline := time.Now().Add(10 * time.Second); auditCount(auditLog) == lines && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				}
				p.stop(t)
				last := lastAuditLine(t, auditLog)
				if got, _ := last["trusted_by"].(string); got != tc.trustedBy {
					t.Errorf("audit line %v: trusted_by %q; want %q", last, got, tc.trustedBy)
				}
			}
			if !strings.Contains(p.stderr.String(), tc.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.stderr, p.stderr.String())
			}
		})
	}
	// The flag wrote nothing: the store still trusts the host path alone.
	r := ocfetch(t, cliOptions{}, "trust", "--list")
	if !strings.Contains(r.stdout, host) || strings.Contains(r.stdout, mnt) {
		t.Errorf("trust --list after the runs:\n%s", r.stdout)
	}
}

// lastAuditLine is the last line of the audit log at path, decoded.
func lastAuditLine(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Logf("%s: %q", path, data)
		t.Fatal(err)
	}
	return m
}

// auditCount is the number of lines in the audit log at path.
func auditCount(path string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), "\n")
}
