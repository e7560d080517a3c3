package main

import (
	"encoding/json"
	"errors"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/trust"
	"slices"
)

const trustedNote = " (ocfetch created its .oc_chat/; `ocfetch trust --revoke` undoes this)\n"

// maliciousClone writes a workspace as a cloned repository could ship it:
// every grant file, a deny rule, and no trust.
func maliciousClone(t *testing.T) string {
	t.Helper()
	root := newUntrustedRoot(t)
	writeClone(t, root)
	return root
}

// writeClone writes maliciousClone's files into root.
func writeClone(t *testing.T, root string) {
	t.Helper()
	ws := wsOf(t, root)
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "permissive"}`)
	writeFile(t, ws.LocalFetchPath(), `{"schema_version": 1, "ports": [6379]}`)
	writeFile(t, ws.RulesPath(), `{"schema_version": 1, "rules": [
  {"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": 6379}, "decision": "allow"},
  {"capability": "network", "target": {"schema": "network.target.v1", "host": "tracker.example", "port": 443}, "decision": "deny"}
]}`)
}

func TestTrustCommand(t *testing.T) {
	root := maliciousClone(t)
	ws := wsOf(t, root)
	grants := []string{
		"workspace: " + root + "\n",
		"its files grant (only while the workspace is trusted):\n",
		"  profile permissive (local mode)  from " + ws.SettingsPath() + "\n",
		"  loopback ports 6379  from " + ws.LocalFetchPath() + "\n",
		"  allow 127.0.0.1:6379  from " + ws.RulesPath() + "\n",
		"they restrict (always, trusted or not):\n  deny tracker.example:443\n",
	}

	// Shipped files do not make the workspace trusted; the commands say so.
	ocfetch(t, cliOptions{}, "--root", root, "rules", "list").want(t, exitOK,
		[]string{"workspace (ignored)  allow     127.0.0.1", "workspace            deny      tracker.example", "note: the workspace is not trusted: its allow rules are ignored until `ocfetch trust --root " + root + "`"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "local", "show").want(t, exitOK, []string{"note: the workspace is not trusted: its ports are ignored"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "show").want(t, exitOK,
		[]string{"profile: permissive (from " + ws.SettingsPath() + ")\n", "note: the workspace is not trusted, so its profile permissive is ignored (standard applies)"}, nil)

	// Not a terminal, no --yes: refused with the command to run, shown the grants.
	r := ocfetch(t, cliOptions{}, "--root", root, "trust")
	r.want(t, exitRefused, grants, []string{"ocfetch: workspace_untrusted: workspace " + root + " is not trusted, and nobody can be asked here", "hint: read what it grants above, then run `ocfetch trust --root " + root + " --yes`"})

	// On a terminal, anything but y/yes declines.
	ocfetch(t, cliOptions{interactive: true, stdin: "\n"}, "--root", root, "trust").want(t, exitOK, append(grants, "not trusted: "+root+"\n"), []string{"Trust " + root + "? [y/N] "})
	ocfetch(t, cliOptions{interactive: true, stdin: "nope\n"}, "--root", root, "trust").want(t, exitOK, []string{"not trusted: "}, nil)
	if ocfetch(t, cliOptions{}, "--root", root, "trust", "--list").stdout != "no trusted workspaces in "+filepath.Join(testLayers(t).configDir, "trust.json")+"\n" {
		t.Fatal("a declined trust was recorded")
	}
	ocfetch(t, cliOptions{interactive: true, stdin: "Y\n"}, "--root", root, "trust").want(t, exitOK, append(grants, "trusted: "+root+" (in "), nil)
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitOK, []string{"unchanged: " + root + " is trusted (since ", "by ocfetch trust)"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "rules", "list").want(t, exitOK, []string{"workspace  allow     127.0.0.1"}, nil)

	r = ocfetch(t, cliOptions{}, "trust", "--list", "--json")
	r.want(t, exitOK, nil, nil)
	var list trustListJSON
	decodeStrict(t, r.stdout, &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].Path != root || list.Workspaces[0].State != trust.Present || list.Workspaces[0].How != "ocfetch trust" {
		t.Errorf("trust --list --json = %+v; want %s, present, by ocfetch trust", list, root)
	}

	ocfetch(t, cliOptions{}, "--root", root, "trust", "--revoke").want(t, exitOK, []string{"revoked: " + root + " is no longer trusted"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--revoke").want(t, exitOK, []string{"unchanged: " + root + " was not trusted"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "rules", "list").want(t, exitOK, []string{"workspace (ignored)"}, nil)

	// --yes trusts at once; a deleted workspace is revoked by its path.
	other := newUntrustedRoot(t)
	ocfetch(t, cliOptions{}, "--root", other, "trust", "--yes").want(t, exitOK, []string{"its files grant nothing\n", "trusted: " + other}, nil)
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	ocfetch(t, cliOptions{}, "trust", "--list").want(t, exitOK, []string{other + "  ", "(missing: moved, renamed or deleted"}, nil)
	ocfetch(t, cliOptions{}, "--root", other, "trust", "--revoke").want(t, exitOK, []string{"revoked: " + other}, nil)
}

func TestTrustCommandErrors(t *testing.T) {
	root := newUntrustedRoot(t)
	for _, args := range [][]string{
		{"trust", "--list", "--revoke"},
		{"trust", "--list", "--yes"},
		{"trust", "--json"},
		{"trust", "extra"},
	} {
		ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...).want(t, exitUsage, nil, []string{"hint: "})
	}
	// A workspace file that cannot be read cannot be shown, so it is not trusted.
	ws := wsOf(t, root)
	writeFile(t, ws.RulesPath(), `{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.co.uk", "port": 443}, "decision": "allow"}]}`)
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitRefused, nil,
		[]string{"rules_invalid: ", `covers the public suffix "co.uk"`, "hint: fix the file first"})
	// A malformed trust store fails closed, naming the file.
	store := filepath.Join(testLayers(t).configDir, "trust.json")
	writeFile(t, store, `{"schema_version": 1}`)
	os.Remove(ws.RulesPath())
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitRefused, nil, []string{"workspace_untrusted: trust store " + store, "hint: fix or delete " + store})
	ocfetch(t, cliOptions{}, "--root", root, "rules", "list").want(t, exitRefused, nil, []string{"workspace_untrusted: trust store " + store})
}

// First use: in an empty directory, local allow, rules allow and profile
// set create .oc_chat/ and so trust the workspace, with no trust command.
func TestFirstUseTrusts(t *testing.T) {
	for _, first := range [][]string{
		{"local", "allow", "3000"},
		{"rules", "allow", "example.com"},
		{"rules", "deny", "example.com"},
		{"profile", "set", "permissive"},
	} {
		t.Run(strings.Join(first, " "), func(t *testing.T) {
			root := newUntrustedRoot(t)
			ocfetch(t, cliOptions{}, append([]string{"--root", root}, first...)...).want(t, exitOK, []string{"trusted: " + root + trustedNote}, nil)
			ocfetch(t, cliOptions{}, "--root", root, "trust", "--list").want(t, exitOK, []string{root + "  ", "  " + strings.Join(append([]string{"ocfetch"}, first[:2]...), " ") + "\n"}, nil)
			// The next write says nothing about trust.
			r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", "example.org")
			r.want(t, exitOK, nil, nil)
			if strings.Contains(r.stdout, "trusted:") {
				t.Errorf("a second write reports trusting again:\n%s", r.stdout)
			}
		})
	}
	// The whole sequence of the issue, then the files grant what they say.
	root := newUntrustedRoot(t)
	for _, args := range [][]string{{"local", "allow", "3000"}, {"rules", "allow", "example.com"}, {"profile", "set", "permissive"}} {
		ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...).want(t, exitOK, nil, nil)
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "profile", "show", "--json")
	r.want(t, exitOK, nil, nil)
	var got profileShowJSON
	decodeStrict(t, r.stdout, &got)
	if got.Profile != "permissive" || got.Source != "settings" || !got.Trusted {
		t.Errorf("profile show --json = %+v; want permissive from settings, trusted", got)
	}
}

// A cloned .oc_chat/ is not trusted by a later write into it, and a
// command that fails creates nothing.
func TestWriteIntoClonedWorkspaceDoesNotTrust(t *testing.T) {
	root := maliciousClone(t)
	r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", "example.com")
	r.want(t, exitOK, []string{"added: allow example.com:443"}, nil)
	if strings.Contains(r.stdout, "trusted:") {
		t.Errorf("writing into a shipped .oc_chat/ trusted the workspace:\n%s", r.stdout)
	}
	fresh := newUntrustedRoot(t)
	ocfetch(t, cliOptions{}, "--root", fresh, "profile", "set", "loose").want(t, exitUsage, nil, []string{"is not one of"})
	ocfetch(t, cliOptions{}, "--root", fresh, "rules", "remove", "example.com").want(t, exitOK, []string{"unchanged: no rule for example.com:443"}, nil)
	if _, err := os.Lstat(wsOf(t, fresh).Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused or empty command created %s", wsOf(t, fresh).Dir())
	}
}

func TestProfileCommand(t *testing.T) {
	root := newUntrustedRoot(t)
	ws := wsOf(t, root)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "show").want(t, exitOK, []string{"profile: standard (the default: " + ws.SettingsPath() + " does not exist)\n"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "--profile", "strict", "profile", "show").want(t, exitOK, []string{"profile: strict (from --profile)\n"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "set", "strict").want(t, exitOK, []string{"set: profile strict in " + ws.SettingsPath() + "\n"}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "set", "strict").want(t, exitOK, []string{"unchanged: profile strict in "}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "show").want(t, exitOK, []string{"profile: strict (from " + ws.SettingsPath() + ")\n"}, nil)
	for _, args := range [][]string{{"profile", "set"}, {"profile", "set", "Permissive"}, {"profile", "show", "x"}, {"profile", "bogus"}} {
		ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...).want(t, exitUsage, nil, []string{"hint: "})
	}
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "loose"}`)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "set", "standard").want(t, exitRefused, nil, []string{"settings_invalid: "})

	// A managed max_profile is shown.
	l := testLayers(t)
	writeManaged(t, l, `{"max_profile": "standard"}`)
	os.Remove(ws.SettingsPath())
	ocfetch(t, cliOptions{}, "--root", root, "profile", "set", "permissive").want(t, exitOK,
		[]string{"set: profile permissive", "note: the managed policy " + l.managed.Path + " caps the profile at standard\n"}, nil)
	r := ocfetch(t, cliOptions{}, "--root", root, "profile", "show", "--json")
	var got profileShowJSON
	decodeStrict(t, r.stdout, &got)
	if got.MaxProfile != "standard" || got.Managed != l.managed.Path {
		t.Errorf("profile show --json = %+v; want max_profile standard from %s", got, l.managed.Path)
	}
	// A malformed managed file refuses, by name.
	writeManaged(t, l, `{"max_profile": "loose"}`)
	ocfetch(t, cliOptions{}, "--root", root, "profile", "show").want(t, exitRefused, nil, []string{"managed_policy_invalid: managed policy " + l.managed.Path})
	ocfetch(t, cliOptions{}, "--root", root, "rules", "list").want(t, exitRefused, nil, []string{"managed_policy_invalid: "})
}

func TestRulesUser(t *testing.T) {
	l := testLayers(t)
	userPath := filepath.Join(l.configDir, "rules.json")
	a, b := newUntrustedRoot(t), newUntrustedRoot(t)
	ocfetch(t, cliOptions{}, "--root", a, "rules", "allow", "--user", "docs.example.org").want(t, exitOK, []string{"added: allow docs.example.org:443 to " + userPath + "\n"}, nil)
	ocfetch(t, cliOptions{}, "--root", a, "rules", "deny", "--user", "*.ads.example").want(t, exitOK, []string{"added: deny *.ads.example:443 to " + userPath}, nil)
	if _, err := os.Lstat(wsOf(t, a).Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rules allow --user created %s", wsOf(t, a).Dir())
	}
	ocfetch(t, cliOptions{}, "--root", b, "rules", "allow", "example.com").want(t, exitOK, nil, nil)
	// Managed rules come first, then the workspace, then the user.
	writeManaged(t, l, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "evil.example", "port": 443}, "decision": "deny"}]}`)
	ocfetch(t, cliOptions{}, "--root", b, "rules", "list").want(t, exitOK, []string{"" +
		"LAYER      DECISION  HOST              PORT\n" +
		"managed    deny      evil.example      443\n" +
		"workspace  allow     example.com       443\n" +
		"user       deny      *.ads.example     443\n" +
		"user       allow     docs.example.org  443\n"}, nil)
	r := ocfetch(t, cliOptions{}, "--root", b, "rules", "list", "--json")
	var got rulesListJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.ManagedFile != l.managed.Path || got.UserFile != userPath || len(got.Rules) != 4 || got.Rules[0].Layer != "managed" || got.Rules[3].File != userPath {
		t.Errorf("rules list --json = %+v", got)
	}
	ocfetch(t, cliOptions{}, "--root", b, "rules", "remove", "--user", "docs.example.org").want(t, exitOK, []string{"removed: docs.example.org:443 from " + userPath}, nil)
	ocfetch(t, cliOptions{}, "--root", b, "rules", "allow", "--user", "*.github.io").want(t, exitUsage, nil, []string{`public suffix "github.io"`})
}

// The user's files are never followed through a symlink: a symlinked
// trust.json, rules.json or lock file is refused and nothing is created
// or changed where it points.
func TestUserFilesSymlinksRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	for _, name := range []string{"trust.json", "trust.json.lock", "rules.json", "rules.json.lock"} {
		t.Run(name, func(t *testing.T) {
			l := testLayers(t)
			if err := os.MkdirAll(l.configDir, 0o700); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "target")
			if err := os.Symlink(outside, filepath.Join(l.configDir, name)); err != nil {
				t.Fatal(err)
			}
			root := newUntrustedRoot(t)
			args := []string{"--root", root, "trust", "--yes"}
			if strings.HasPrefix(name, "rules") {
				args = []string{"--root", root, "rules", "allow", "--user", "example.com"}
			}
			r := ocfetch(t, cliOptions{}, args...)
			r.want(t, exitRefused, nil, []string{"a symlink, which ocfetch never follows"})
			if _, err := os.Lstat(outside); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s was created through the symlink", outside)
			}
		})
	}
}

// writeManaged installs the test's managed policy file as an administrator
// would: writable by its owner only, whatever the umask.
func writeManaged(t *testing.T, l layerFiles, body string) {
	t.Helper()
	writeFile(t, l.managed.Path, body)
	for _, p := range []string{l.managed.Path, filepath.Dir(l.managed.Path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, fi.Mode().Perm()&^0o022); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTrustAndExplainAgreeOnUpstream: a settings.json holding only
// upstream_proxy grants something — trust lists it, and explain refuses a
// public URL workspace_untrusted naming that grant — so the two commands
// read the workspace's grants alike.
func TestTrustAndExplainAgreeOnUpstream(t *testing.T) {
	root := newUntrustedRoot(t)
	ws := wsOf(t, root)
	testws.Write(t, ws, testws.Spec{})
	testws.WriteFile(t, ws.SettingsPath(), `{"schema_version": 1, "upstream_proxy": "http://127.0.0.1:3128"}`)
	r := ocfetch(t, cliOptions{}, "--root", root, "trust")
	r.want(t, exitRefused, []string{"its files grant (only while the workspace is trusted):", "upstream_proxy http://127.0.0.1:3128", ws.SettingsPath()}, nil)
	if strings.Contains(r.stdout, "grant nothing") {
		t.Errorf("trust says the files grant nothing:\n%s", r.stdout)
	}
	ocfetch(t, cliOptions{}, "--root", root, "explain", "https://example.com/").
		want(t, exitOK, []string{"decision:   deny", "workspace_untrusted", "upstream_proxy 127.0.0.1:3128",
			"layer workspace: " + ws.Dir() + ": untrusted: its grants (upstream_proxy http://127.0.0.1:3128 (public connections go through it) from " + ws.SettingsPath() + ") are ignored"}, nil)
}

// TestTrustAndExplainListTheSameGrants: for workspaces whose files grant
// something, nothing, or only restrict, explain's workspace layer (its
// "grants", from the layer list policy.Order) names exactly the lines
// `ocfetch trust` prints under "its files grant", and explain never
// refuses workspace_untrusted naming a file trust says grants nothing.
func TestTrustAndExplainListTheSameGrants(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string // "" none
		spec     testws.Spec
	}{
		{"upstream_proxy only", `{"schema_version": 1, "upstream_proxy": "http://127.0.0.1:3128"}`, testws.Spec{}},
		{"nothing", "", testws.Spec{}},
		{"restrictions only", `{"schema_version": 1, "risk_profile": "strict"}`, testws.Spec{Deny: []string{"tracker.example:443"}}},
		{"every grant", `{"schema_version": 1, "risk_profile": "permissive", "upstream_proxy": "http://127.0.0.1:3128"}`, testws.Spec{LocalPorts: []uint16{3000}, Allow: []string{"a.example:443", "b.example:8443"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newUntrustedRoot(t)
			ws := wsOf(t, root)
			testws.Write(t, ws, tc.spec)
			if tc.settings != "" {
				testws.WriteFile(t, ws.SettingsPath(), tc.settings)
			}
			r := ocfetch(t, cliOptions{}, "--root", root, "trust")
			var trustLines []string
			if _, after, ok := strings.Cut(r.stdout, "its files grant (only while the workspace is trusted):\n"); ok {
				block, _, _ := strings.Cut(after, "they restrict")
				for _, l := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
					if !strings.HasPrefix(l, "  ") {
						break
					}
					what, _, _ := strings.Cut(strings.TrimPrefix(l, "  "), "  from ")
					trustLines = append(trustLines, what)
				}
			} else if !strings.Contains(r.stdout, "its files grant nothing") {
				t.Fatalf("trust printed neither grants nor \"grant nothing\":\n%s%s", r.stdout, r.stderr)
			}

			r = ocfetch(t, cliOptions{}, "--root", root, "explain", "--json", "https://example.com/")
			var e struct {
				Reason string `json:"reason"`
				File   string `json:"file"`
				Layers []struct {
					Layer  string            `json:"layer"`
					Grants []trust.GrantLine `json:"grants"`
				} `json:"layers"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
				t.Fatalf("explain --json: %v\n%s", err, r.stdout)
			}
			var explainLines []string
			var files []string
			for _, l := range e.Layers {
				if l.Layer == policy.LayerWorkspace.String() {
					for _, g := range l.Grants {
						explainLines = append(explainLines, g.What)
						files = append(files, g.File)
					}
				}
			}
			if d := cmp.Diff(trustLines, explainLines); d != "" {
				t.Errorf("explain's workspace grants differ from trust's (-trust +explain):\n%s", d)
			}
			if e.Reason == string(refusal.WorkspaceUntrusted) && !slices.Contains(files, e.File) {
				t.Errorf("explain refuses workspace_untrusted naming %s, which trust does not list as granting (%v)", e.File, files)
			}
		})
	}
}

// The clone that replaces a trusted one: `rm -rf proj && git clone evil
// proj`. The new directory is untrusted (even with the old inode) and
// every command says it was replaced; trusting it again is the way back.
func TestTrustReplacedDirectory(t *testing.T) {
	root := maliciousClone(t)
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitOK, []string{"trusted: " + root}, nil)
	store, err := trust.Open(&trust.Options{Dir: testLayers(t).configDir})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := store.List()
	if err != nil || len(entries) != 1 {
		t.Fatalf("List = %v, %v", entries, err)
	}
	day := entries[0].TrustedAt.UTC().Format(time.DateOnly)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeClone(t, root)

	ocfetch(t, cliOptions{}, "trust", "--list").want(t, exitOK, []string{root + "  ", "(replaced: another directory is there now, and it is not trusted)"}, nil)
	r := ocfetch(t, cliOptions{}, "trust", "--list", "--json")
	r.want(t, exitOK, nil, nil)
	var list trustListJSON
	decodeStrict(t, r.stdout, &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].State != trust.Replaced || list.Workspaces[0].Trusted || list.Workspaces[0].Outdated {
		t.Errorf("trust --list --json = %+v; want one entry, replaced, not trusted", list)
	}
	if !strings.Contains(r.stdout, `"state": "replaced"`) || !strings.Contains(r.stdout, `"trusted": false`) || strings.Contains(r.stdout, `"outdated"`) {
		t.Errorf("trust --list --json printed %s", r.stdout)
	}
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", "http://127.0.0.1:6379/").want(t, exitRefused, nil, []string{
		"ocfetch: workspace_untrusted: workspace " + root + " was replaced since it was trusted on " + day,
		`so "port 6379" in ` + filepath.Join(root, ".oc_chat", "local_fetch.json") + " was ignored",
		"hint: if you trust the new directory's files, run `ocfetch trust --root " + root + "`",
	})
	ocfetch(t, cliOptions{}, "--root", root, "explain", "http://127.0.0.1:6379/").want(t, exitOK, []string{"untrusted (it was replaced since it was trusted on " + day}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "trust").want(t, exitRefused,
		[]string{"note: " + root + " was replaced since it was trusted on " + day + ": the directory there now is another one, and it is not trusted\n"},
		[]string{"workspace_untrusted: workspace " + root + " is not trusted"})
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitOK, []string{"trusted: " + root}, nil)
	ocfetch(t, cliOptions{}, "trust", "--list", "--json").want(t, exitOK, []string{`"state": "present"`, `"trusted": true`}, nil)
}

// An entry an older ocfetch wrote (no incarnation) trusts nothing: it is
// listed as outdated and every command says to trust the workspace again.
func TestTrustOutdatedEntry(t *testing.T) {
	root := maliciousClone(t)
	store, err := trust.Open(&trust.Options{Dir: testLayers(t).configDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(t.Context(), root, trust.Details{How: "ocfetch trust"}); err != nil {
		t.Fatal(err)
	}
	entries, _ := store.List()
	entries[0].Incarnation = ""
	writeFile(t, store.Path(), string(trust.Encode(entries)))

	ocfetch(t, cliOptions{}, "trust", "--list").want(t, exitOK, []string{root + "  ", "(outdated: trusted by an older ocfetch, which did not record which directory it was; not trusted until you run `ocfetch trust --root " + root + "` again)"}, nil)
	ocfetch(t, cliOptions{}, "trust", "--list", "--json").want(t, exitOK, []string{`"state": "present"`, `"trusted": false`, `"outdated": true`}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", "http://127.0.0.1:6379/").want(t, exitRefused, nil, []string{
		"ocfetch: workspace_untrusted: workspace " + root + " was trusted by an older ocfetch, which did not record which directory it was",
		"hint: if you still trust this workspace's files, run `ocfetch trust --root " + root + "` again",
	})
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitOK, []string{
		"note: " + root + " was trusted by an older ocfetch, which did not record which directory it was: it is not trusted until you trust it again\n",
		"trusted: " + root}, nil)
	ocfetch(t, cliOptions{}, "trust", "--list", "--json").want(t, exitOK, []string{`"trusted": true`}, nil)
}

// TestCreatedNoteOnlyWhenCreated: the first write says "ocfetch created its
// .oc_chat/" only when this command made the directory; a .oc_chat/ that
// was already there with only ocfetch's own files (an audit log, as a
// sandboxed run or an earlier call leaves) is trusted with a note that
// says that instead; a trusted workspace gets no note.
func TestCreatedNoteOnlyWhenCreated(t *testing.T) {
	// The trust store is the test's, not its first subtest's: the second
	// finds the workspace the first trusted.
	testLayers(t)
	fresh := newUntrustedRoot(t)
	existing := newUntrustedRoot(t)
	writeFile(t, filepath.Join(existing, ".oc_chat", "audit.jsonl"), "")
	for _, tc := range []struct {
		name, root, want string
	}{
		{"no .oc_chat", fresh, "trusted: " + fresh + trustedNote},
		{"already trusted", fresh, ""},
		{".oc_chat with an audit log only", existing, "trusted: " + existing + " (its .oc_chat/ held only ocfetch's own files: the audit log, lock files; `ocfetch trust --revoke` undoes this)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, "--root", tc.root, "rules", "allow", "example.com")
			r.want(t, exitOK, nil, nil)
			note := "" // every line before the last, the rule's
			if i := strings.LastIndex(strings.TrimSuffix(r.stdout, "\n"), "\n"); i >= 0 {
				note = r.stdout[:i+1]
			}
			if note != tc.want {
				t.Errorf("stdout before the rule: %q; want %q\nwhole stdout:\n%s", note, tc.want, r.stdout)
			}
		})
	}
}

// TestGrantInUntrustedWorkspaceSaysSo: every command that writes a grant
// into an untrusted workspace — rules allow, local allow, profile set
// permissive — says, in the one sentence, that it is ignored until the
// workspace is trusted. A deny rule (a restriction) always applies.
func TestGrantInUntrustedWorkspaceSaysSo(t *testing.T) {
	root := newUntrustedRoot(t)
	ws := wsOf(t, root)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	// It came with its .oc_chat/ and a file of its own: not trusted.
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "standard"}`)
	note := func(grant string) string {
		return "note: the workspace is not trusted, so " + grant + " is ignored until `" + trust.Command(root) + "`\n"
	}
	for _, tc := range []struct {
		args []string
		want string // "" for no note
	}{
		{[]string{"rules", "allow", "example.com"}, note("this rule")},
		{[]string{"rules", "allow", "example.com"}, note("this rule")}, // unchanged, still ignored
		{[]string{"local", "allow", "3000"}, note("this port")},
		{[]string{"profile", "set", "permissive"}, note("this profile")},
		{[]string{"rules", "deny", "denied.example"}, ""},
		{[]string{"rules", "allow", "--user", "user.example"}, ""},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
		r.want(t, exitOK, nil, nil)
		if tc.want != "" && !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%v: stdout\n%s\nwant the note %q", tc.args, r.stdout, tc.want)
		}
		if tc.want == "" && strings.Contains(r.stdout, "not trusted") {
			t.Errorf("%v: stdout\n%s\nwant no note: it is no workspace grant", tc.args, r.stdout)
		}
	}
}
