//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fsWorld is a tree for the filesystem tests, under its own temporary
// directory (TMPDIR points inside it, so "outside" is outside every
// writable root):
//
//	base/tmp/            the system temporary directory (writable)
//	base/tmp/ws/         the workspace, with .oc_chat/{rules.json,audit.jsonl} and .git/{hooks/,config}
//	base/cfg/            the user's configuration directory (rules.json, trust.json)
//	base/outside/        a directory the user may write, outside every root
//	base/allowed/        a directory given as an extra writable root
//	base/secret/key, base/secretfile   denied to read
type fsWorld struct {
	base, ws, cfg, outside, allowed, secret, secretFile string
	// policy are the policy files, with their content before the test.
	policy map[string][]byte
}

func newFSWorld(t *testing.T) *fsWorld {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	w := &fsWorld{base: base, ws: base + "/tmp/ws", cfg: base + "/cfg", outside: base + "/outside",
		allowed: base + "/allowed", secret: base + "/secret", secretFile: base + "/secretfile", policy: map[string][]byte{}}
	for _, d := range []string{w.ws + "/.oc_chat", w.ws + "/.git/hooks", w.cfg, w.outside, w.allowed, w.secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		w.ws + "/.oc_chat/rules.json":   `{"schema_version": 1, "rules": []}` + "\n",
		w.ws + "/.oc_chat/audit.jsonl":  `{"line": 1}` + "\n",
		w.cfg + "/rules.json":           `{"schema_version": 1, "rules": []}` + "\n",
		w.cfg + "/trust.json":           `{"schema_version": 1}` + "\n",
		w.ws + "/.git/config":           "[core]\n",
		w.ws + "/.git/hooks/pre-commit": "#!/bin/sh\n",
		w.secret + "/key":               "SECRET-KEY\n",
		w.secretFile:                    "SECRET-FILE\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, ".oc_chat") || strings.HasPrefix(p, w.cfg) || strings.Contains(p, ".git/") {
			w.policy[p] = []byte(c)
		}
	}
	// Everything belongs to the test's user: under TestUnprivileged that
	// is nobody, who must be able to write where the sandbox allows it.
	t.Setenv("TMPDIR", base+"/tmp")
	return w
}

// fs is the confinement `ocfetch run` asks for in w.
func (w *fsWorld) fs(mountOnly bool) *Filesystem {
	return &Filesystem{
		Protected:  []string{w.ws + "/.oc_chat", w.cfg, w.base + "/etc-ocfetch"},
		Writable:   []string{w.ws, w.allowed},
		DenyRead:   []string{w.secret, w.secretFile},
		noLandlock: mountOnly,
	}
}

// confined runs script with sh in the sandbox with fs, in dir, and
// returns its output lines.
func confined(t *testing.T, fs *Filesystem, dir, script string) []string {
	t.Helper()
	cmd, err := Command(context.Background(), []string{"sh", "-c", tryFunc + script}, func(netip.AddrPort) []string { return os.Environ() })
	if err != nil {
		t.Fatal(err)
	}
	cmd.Filesystem = fs
	cmd.Dir = dir
	lines := outputLines(t, cmd)
	if fs != nil {
		want := "landlock+mount-namespace"
		if fs.noLandlock || landlockABI() == 0 {
			want = "mount-namespace"
		}
		if got := cmd.Confinement(); got != want {
			t.Errorf("Confinement() = %q; want %q", got, want)
		}
	}
	return lines
}

// tryFunc is a shell function: `try NAME CMD...` prints "OK NAME" or
// "FAIL NAME".
const tryFunc = `try() { n=$1; shift; if "$@" 2>/dev/null; then echo "OK $n"; else echo "FAIL $n"; fi; }
`

// modes are the two ways the sandbox confines writes.
var modes = []struct {
	name      string
	mountOnly bool
}{{"landlock", false}, {"mount namespace only", true}}

// checkTries reports every line of out that is not "FAIL ..." for a name
// in mustFail, and every "FAIL" for a name in mustPass.
func checkTries(t *testing.T, out []string, mustFail, mustPass []string) {
	t.Helper()
	got := map[string]string{}
	for _, l := range out {
		if v, n, ok := strings.Cut(l, " "); ok && (v == "OK" || v == "FAIL") {
			got[n] = v
		}
	}
	for _, n := range mustFail {
		if got[n] != "FAIL" {
			t.Errorf("%s: got %q; want it refused", n, got[n])
		}
	}
	for _, n := range mustPass {
		if got[n] != "OK" {
			t.Errorf("%s: got %q; want it allowed", n, got[n])
		}
	}
}

// TestPolicyFilesReadOnly: inside the sandbox every way to change a
// policy file fails — create, append, truncate, chmod, rename, delete,
// replace — by absolute and relative path, and so do renaming or removing
// .oc_chat/ itself, the configuration directory and the workspace that
// holds them (whose parent, the temporary directory, is writable); the
// files are unchanged afterwards.
func TestPolicyFilesReadOnly(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			w := newFSWorld(t)
			var script strings.Builder
			var names []string
			for p := range w.policy {
				for _, op := range []struct{ name, cmd string }{
					{"append", `sh -c 'echo x >> "$0"'`},
					{"truncate", `sh -c ': > "$0"'`},
					{"chmod", `chmod 666`},
					{"rename", `sh -c 'mv "$0" "$0.moved"'`},
					{"delete", `rm -f`},
					{"replace", `sh -c 'echo {} > "$0.new" && mv -f "$0.new" "$0"'`},
				} {
					n := op.name + ":" + p
					names = append(names, n)
					script.WriteString("try '" + n + "' " + op.cmd + " '" + p + "'\n")
				}
			}
			for _, c := range []struct{ name, cmd string }{
				{"relative write", `sh -c 'echo x > .oc_chat/rules.json'`},
				{"relative create", `touch .oc_chat/new.json`},
				{"create in config", `touch ` + w.cfg + `/new.json`},
				{"create managed", `mkdir ` + w.base + `/etc-ocfetch`},
				{"rename .oc_chat", `mv .oc_chat oc`},
				{"remove .oc_chat", `rm -rf .oc_chat`},
				{"rename config", `mv ` + w.cfg + ` ` + w.base + `/cfg2`},
				{"rename workspace", `mv ` + w.ws + ` ` + w.base + `/tmp/ws2`},
				{"symlink over .oc_chat", `ln -sfn /tmp .oc_chat`},
			} {
				names = append(names, c.name)
				script.WriteString("try '" + c.name + "' " + c.cmd + "\n")
			}
			script.WriteString("try 'write workspace' sh -c 'echo x > new-file'\n")
			out := confined(t, w.fs(m.mountOnly), w.ws, script.String())
			checkTries(t, out, names, []string{"write workspace"})
			for p, want := range w.policy {
				if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: got %q, %v; want it unchanged (%q)", p, got, err, want)
				}
			}
			if _, err := os.Stat(w.base + "/etc-ocfetch"); err == nil {
				t.Error("the command created the missing managed policy directory")
			}
		})
	}
}

// TestWriteAllowList: the command writes in the workspace, the temporary
// directory and an allowed root, and nowhere else; inside the workspace
// .git/hooks and .git/config stay read-only (and .git cannot be moved
// away) while the rest of .git is writable; the bit bucket works.
func TestWriteAllowList(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			w := newFSWorld(t)
			script := `
try workspace sh -c 'echo x > "$0"/f' ` + w.ws + `
try tmp sh -c 'echo x > "$TMPDIR"/f'
try allowed sh -c 'echo x > "$0"/f' ` + w.allowed + `
try outside sh -c 'echo x > "$0"/f' ` + w.outside + `
try outside-mkdir mkdir ` + w.outside + `/d
try devnull sh -c 'echo x > /dev/null'
try hook sh -c 'echo evil > .git/hooks/post-checkout'
try hook-edit sh -c 'echo evil >> .git/hooks/pre-commit'
try git-config sh -c 'echo "[core] fsmonitor = evil" >> .git/config'
try git-object sh -c 'mkdir -p .git/objects && echo x > .git/objects/f'
try move-git mv .git .git-old
`
			out := confined(t, w.fs(m.mountOnly), w.ws, script)
			checkTries(t, out,
				[]string{"outside", "outside-mkdir", "hook", "hook-edit", "git-config", "move-git"},
				[]string{"workspace", "tmp", "allowed", "devnull", "git-object"})
			if _, err := os.Stat(w.outside + "/f"); err == nil {
				t.Error("a file appeared outside every writable root")
			}
		})
	}
}

// TestWriteAnywhere: with WriteAnywhere (--allow-write /) the command
// writes outside the workspace again, and the policy files and the
// dangerous ones stay read-only.
func TestWriteAnywhere(t *testing.T) {
	w := newFSWorld(t)
	// The managed policy's directory exists: were it missing, its
	// nearest ancestor (here base, holding outside) would stay read-only.
	if err := os.Mkdir(w.base+"/etc-ocfetch", 0o755); err != nil {
		t.Fatal(err)
	}
	fs := w.fs(false)
	fs.WriteAnywhere = true
	out := confined(t, fs, w.ws, `
try outside sh -c 'echo x > "$0"/f' `+w.outside+`
try managed sh -c 'echo {} > "$0"/policy.json' `+w.base+`/etc-ocfetch
try rules sh -c 'echo x > .oc_chat/rules.json'
try user-rules sh -c 'echo x > "$0"/rules.json' `+w.cfg+`
try git-config sh -c 'echo x >> .git/config'
`)
	checkTries(t, out, []string{"rules", "user-rules", "git-config", "managed"}, []string{"outside"})
}

// TestDenyRead: a denied directory and a denied file cannot be read;
// their neighbours can.
func TestDenyRead(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			w := newFSWorld(t)
			out := confined(t, w.fs(m.mountOnly), w.ws, `
try key sh -c 'grep -q SECRET "$0"/key' `+w.secret+`
try file sh -c 'grep -q SECRET "$0"' `+w.secretFile+`
try list sh -c 'ls "$0" | grep -q key' `+w.secret+`
try neighbour sh -c 'grep -q schema "$0"/rules.json' `+w.cfg+`
`)
			checkTries(t, out, []string{"key", "file", "list"}, []string{"neighbour"})
		})
	}
}

// TestProcSysReadOnly: as root, the command cannot write a kernel setting,
// with or without a filesystem confinement. The write puts the current
// value back, so even a failing sandbox changes nothing.
func TestProcSysReadOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("an ordinary user cannot write /proc/sys anyway")
	}
	const f = "/proc/sys/kernel/core_pattern"
	before, err := os.ReadFile(f)
	if err != nil {
		t.Skipf("no %s here: %v", f, err)
	}
	for _, tc := range []struct {
		name string
		fs   *Filesystem
	}{{"network only", nil}, {"with filesystem", &Filesystem{Writable: []string{t.TempDir()}}}} {
		t.Run(tc.name, func(t *testing.T) {
			out := confined(t, tc.fs, "/", `try core_pattern sh -c 'v=$(cat /proc/sys/kernel/core_pattern) && printf "%s\n" "$v" > /proc/sys/kernel/core_pattern'
try read-sysctl sh -c 'cat /proc/sys/kernel/core_pattern >/dev/null'
`)
			checkTries(t, out, []string{"core_pattern"}, []string{"read-sysctl"})
		})
	}
	if after, _ := os.ReadFile(f); !bytes.Equal(before, after) {
		t.Errorf("%s changed: %q → %q", f, before, after)
	}
}

// TestResolve checks the plan a Filesystem gives: real paths, the
// dangerous files found in the workspace, the pins on the way to a
// protected path whose parent is writable, a missing protected path kept
// missing by its (writable) parent, hidden paths, mount order.
func TestResolve(t *testing.T) {
	w := newFSWorld(t)
	fs := w.fs(false)
	fs.Protected = append(fs.Protected, w.allowed+"/missing-dir/policy.json")
	p := fs.Resolve(w.base + "/home-not-there")
	var got []string
	for _, m := range p.Mounts {
		got = append(got, string(m.Kind)+" "+strings.TrimPrefix(m.Path, w.base))
	}
	want := []string{
		"pin /tmp/ws",      // its parent, the temporary directory, is writable
		"pin /tmp/ws/.git", // the way to .git/hooks and .git/config
		"read-only /proc/sys",
		"read-only /cfg",
		"read-only /allowed", // the missing policy file's nearest existing, writable ancestor
		"read-only /tmp/ws/.oc_chat",
		"read-only /tmp/ws/.git/hooks",
		"read-only /tmp/ws/.git/config",
		"hide-dir /secret",
		"hide-file /secretfile",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mounts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(p.Writable) != 3 || p.Writable[0] != w.base+"/tmp" || p.WriteAnywhere {
		t.Errorf("writable: got %q (anywhere %v); want the temporary directory, the workspace and the allowed root", p.Writable, p.WriteAnywhere)
	}
	lines := p.Describe("test")
	if lines[0] != "filesystem confinement: test" || !strings.HasPrefix(lines[1], "writable: "+w.base+"/tmp, ") {
		t.Errorf("Describe: got %q", lines)
	}
}
