package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWritesNeverLeaveTheWorkspace plants a symlink at .oc_chat itself and
// at each file a command writes (or reads before writing), pointing out of
// the workspace — at a directory, at a file, at a name that does not exist
// — and runs every command that writes: rules allow/deny/remove, local
// allow/revoke, an "always" answer, and a get whose audit line is appended.
// Each must fail naming the link, and nothing outside the workspace may be
// created or changed (issue 12, "no write leaves the workspace").
func TestWritesNeverLeaveTheWorkspace(t *testing.T) {
	s := newSite(t)
	type plant struct {
		name string // the link, relative to .oc_chat ("" for .oc_chat itself)
		to   string // "dir", "file" or "missing": what outside it points at
	}
	commands := []struct {
		name        string
		args        []string
		stdin       string
		interactive bool
		setup       func(t *testing.T, root string) // what the workspace holds first
		plants      []plant
		// mayRun: the call itself may still go through. An "always" answer
		// whose rule cannot be saved runs once (the broker's contract), and
		// an audit line that cannot be written does not stop the call (the
		// audit preflight, audit_unavailable, is the policy core's).
		mayRun bool
	}{
		{"rules allow", []string{"rules", "allow", "example.com"}, "", false, nil, []plant{
			{"", "dir"}, {"", "missing"}, {"rules.json", "file"}, {"rules.json", "missing"},
			{"rules.json.lock", "file"}, {"rules.json.lock", "missing"},
		}, false},
		{"rules deny", []string{"rules", "deny", "example.com"}, "", false, nil, []plant{
			{"", "dir"}, {"rules.json", "file"}, {"rules.json.lock", "missing"},
		}, false},
		{"rules remove", []string{"rules", "remove", "example.com"}, "", false, nil, []plant{
			{"", "dir"}, {"rules.json", "file"}, {"rules.json.lock", "missing"},
		}, false},
		{"local allow", []string{"local", "allow", "8080"}, "", false, nil, []plant{
			{"", "dir"}, {"", "missing"}, {"local_fetch.json", "file"}, {"local_fetch.json", "missing"},
			{"local_fetch.json.lock", "file"}, {"local_fetch.json.lock", "missing"},
		}, false},
		{"local revoke", []string{"local", "revoke", "8080"}, "", false, nil, []plant{
			{"", "dir"}, {"local_fetch.json", "file"}, {"local_fetch.json.lock", "missing"},
		}, false},
		{"always answer", []string{"--profile", "permissive", "get", s.url("/")}, "always\n", true,
			func(t *testing.T, root string) { localRoot2(t, root, s.port, false) },
			[]plant{{"rules.json", "missing"}, {"rules.json.lock", "missing"}, {"rules.json.lock", "file"}}, true},
		{"audit append", []string{"--profile", "permissive", "get", s.url("/")}, "", false,
			func(t *testing.T, root string) { localRoot2(t, root, s.port, true) },
			[]plant{{"audit.jsonl", "file"}, {"audit.jsonl", "missing"}}, true},
		{"settings read", []string{"--profile", "", "get", "--yes", s.url("/")}, "", false,
			func(t *testing.T, root string) { localRoot2(t, root, s.port, true) },
			[]plant{{"settings.json", "file"}}, false},
	}
	for _, c := range commands {
		for _, p := range c.plants {
			link := ".oc_chat"
			if p.name != "" {
				link += "/" + p.name
			}
			t.Run(c.name+"/"+link+"->"+p.to, func(t *testing.T) {
				base := newRoot(t)
				root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
				for _, d := range []string{root, outside, filepath.Join(outside, "dir")} {
					if err := os.Mkdir(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				writeFile(t, filepath.Join(outside, "file"), `{"schema_version": 1, "rules": []}`)
				if c.setup != nil {
					c.setup(t, root)
				}
				at := filepath.Join(root, filepath.FromSlash(link))
				if p.name == "" {
					os.RemoveAll(at)
				} else {
					os.MkdirAll(filepath.Dir(at), 0o755)
					os.Remove(at)
				}
				if err := os.Symlink(filepath.Join(outside, p.to), at); err != nil {
					t.Skip("symlink:", err)
				}
				before := snapshot(t, outside)
				args := append([]string{"--root", root}, c.args...)
				if c.name == "settings read" {
					args = []string{"--root", root, "get", "--yes", s.url("/")}
				}
				r := ocfetch(t, cliOptions{interactive: c.interactive, stdin: c.stdin}, args...)
				if c.mayRun {
					if p.name != "rules.json" {
						if _, err := os.Lstat(filepath.Join(root, ".oc_chat", "rules.json")); c.name == "always answer" && !os.IsNotExist(err) {
							t.Errorf("the always rule was saved past a symlinked lock (lstat: %v)", err)
						}
					}
				} else {
					if r.code == exitOK {
						t.Errorf("ocfetch %v = exit 0 with a symlink at %s\nstdout: %s\nstderr: %s", c.args, link, r.stdout, r.stderr)
					}
					if !strings.Contains(r.stderr, at) {
						t.Errorf("stderr does not name the link %s:\n%s", at, r.stderr)
					}
					if !strings.Contains(r.stderr, "symlink") {
						t.Errorf("stderr does not say it is a symlink:\n%s", r.stderr)
					}
				}
				if diff := cmp.Diff(before, snapshot(t, outside)); diff != "" {
					t.Errorf("outside the workspace changed (-before +after):\n%s", diff)
				}
				if _, err := os.Stat(filepath.Join(outside, "missing")); !os.IsNotExist(err) {
					t.Errorf("the dangling link's target was created (stat: %v)", err)
				}
				if fi, err := os.Lstat(at); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link %s itself was replaced (lstat: %v, %v)", at, fi, err)
				}
			})
		}
	}
}
