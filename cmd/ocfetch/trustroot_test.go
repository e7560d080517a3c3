package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTrustRootRefused: --trust-root (and OCFETCH_TRUST_ROOT) is refused at
// start, before anything listens, unless it names exactly the workspace
// root; a managed policy's "allow_trust_flag": false refuses it whatever
// it names. TestContainerTrustRoot (Linux) shows what it trusts.
func TestTrustRootRefused(t *testing.T) {
	root := newUntrustedRoot(t)
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(newUntrustedRoot(t), "link")
	if runtime.GOOS != "windows" {
		if err := os.Symlink(root, link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"relative", []string{"--root", root, "proxy", "--listen", "127.0.0.1:0", "--trust-root", "."}, exitUsage, []string{"--trust-root . is not an absolute path", "hint: name the workspace root itself"}},
		{"below the root", []string{"--root", root, "mcp", "--trust-root", sub}, exitUsage, []string{"is not the workspace root " + root}},
		{"above the root", []string{"--root", sub, "proxy", "--listen", "127.0.0.1:0", "--trust-root", root}, exitUsage, []string{"is not the workspace root " + sub}},
		{"a prefix of the root", []string{"--root", sub, "mcp", "--trust-root", sub[:len(sub)-1]}, exitUsage, []string{"is not the workspace root"}},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name   string
			args   []string
			code   int
			stderr []string
		}{"through a symlink", []string{"--root", link, "mcp", "--trust-root", link}, exitUsage, []string{"leads through a symlink", "hint: name the directory itself"}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ocfetch(t, cliOptions{}, tc.args...).want(t, tc.code, nil, tc.stderr)
		})
	}

	l := testLayers(t)
	if err := os.MkdirAll(filepath.Dir(l.managed.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, l.managed.Path, `{"allow_trust_flag": false}`)
	t.Cleanup(func() { os.Remove(l.managed.Path) })
	for _, cmd := range [][]string{{"mcp"}, {"proxy", "--listen", "127.0.0.1:0"}} {
		args := append(append([]string{"--root", root}, cmd...), "--trust-root", root)
		ocfetch(t, cliOptions{}, args...).want(t, exitRefused, nil,
			[]string{"managed_policy_forbids", "forbids trusting a workspace by --trust-root (allow_trust_flag: false)", "hint: drop --trust-root"})
	}
}

// TestTrustRootEnvHint: refused from OCFETCH_TRUST_ROOT, the hint writes
// the variable as it is set (OCFETCH_TRUST_ROOT=DIR), not as a flag.
func TestTrustRootEnvHint(t *testing.T) {
	root := newUntrustedRoot(t)
	var stdout, stderr bytes.Buffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.interactive = func() bool { return false }
	a.progress = func() bool { return false }
	a.controllingTerminal = func() (*os.File, bool) { return nil, false }
	a.layers = testLayers(t)
	a.getenv = func(k string) string {
		if k == trustRootEnv {
			return filepath.Dir(root)
		}
		return ""
	}
	r := result{code: execute(context.Background(), a, []string{"--root", root, "mcp"}), stdout: stdout.String(), stderr: stderr.String()}
	r.want(t, exitUsage, nil, []string{"hint: name the workspace root itself: OCFETCH_TRUST_ROOT=" + root + " (or --root DIR with the same DIR)"})
}
