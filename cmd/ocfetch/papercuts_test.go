package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGetPapercuts: get --json without a URL prints the JSON error object;
// get's User-Agent is the versioned one ocfetch mcp sends (never
// "(devel)"); -o FILE prints no header summary on stdout.
func TestGetPapercuts(t *testing.T) {
	r := ocfetch(t, cliOptions{}, "get", "--json")
	var obj struct {
		OK    bool `json:"ok"`
		Error struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if r.code != exitUsage || json.Unmarshal([]byte(r.stdout), &obj) != nil || obj.OK || obj.Error.Reason != "invalid_arguments" || !strings.Contains(obj.Error.Message, "missing URL") {
		t.Errorf("get --json without a URL: exit %d stdout %q stderr %q; want exit 2 and the JSON error object", r.code, r.stdout, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("get --json without a URL wrote on stderr: %q", r.stderr)
	}

	s := newSite(t)
	root := localRoot(t, s)
	ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", s.url("/echo")).want(t, exitOK, nil, nil)
	reqs := s.requests()
	ua := reqs[len(reqs)-1].header.Get("User-Agent")
	if ua != getUserAgent() || strings.Contains(ua, "(devel)") || !strings.HasPrefix(ua, "ocfetch/") {
		t.Errorf("get sent User-Agent %q; want %q, as mcp", ua, getUserAgent())
	}

	file := filepath.Join(t.TempDir(), "page.html")
	r = ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "-o", file, s.url("/"))
	r.want(t, exitOK, nil, nil)
	if strings.Contains(r.stdout, "content-type") || strings.Contains(r.stdout, "url: ") || !strings.Contains(r.stdout, "wrote 127 bytes to ") {
		t.Errorf("get -o FILE printed the response summary on stdout:\n%s", r.stdout)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "Harbour") {
		t.Errorf("%s: %v; want the page", file, err)
	}
}

// TestNoStrayLockFiles: the commands that write .oc_chat/ and the user's
// configuration directory leave no empty .lock file behind (Unix; Windows
// cannot remove a file another process may hold open).
func TestNoStrayLockFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps its lock files")
	}
	root := newUntrustedRoot(t)
	for _, args := range [][]string{
		{"rules", "allow", "example.com"},
		{"rules", "deny", "tracker.example"},
		{"rules", "allow", "--user", "docs.example"},
		{"rules", "remove", "example.com"},
		{"local", "allow", "3000"},
		{"profile", "set", "permissive"},
		{"trust", "--yes"},
		{"get", "https://not-allowed.example/"},
	} {
		ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
	}
	for _, dir := range []string{filepath.Join(root, ".oc_chat"), testLayers(t).configDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
			if strings.HasSuffix(e.Name(), ".lock") {
				t.Errorf("%s remains in %s", e.Name(), dir)
			}
		}
		t.Logf("%s: %v", dir, names)
	}
}

// TestUsagePapercuts: a usage error names what is wrong in the user's
// terms. `rules allow --from-run ID HOST` says --from-run takes no
// HOST[:PORT] (not that `rules allow` takes no arguments, which its help
// contradicts); `run --deny-read MISSING` does not hint at writing there.
func TestUsagePapercuts(t *testing.T) {
	root := newRoot(t)
	for _, flag := range [][]string{{"--from-run", "R"}, {"--public-https"}} {
		args := append(append([]string{"--root", root, "rules", "allow"}, flag...), "example.com")
		r := ocfetch(t, cliOptions{}, args...)
		r.want(t, exitUsage, nil, []string{"ocfetch: " + flag[0] + " takes no HOST[:PORT]; 1 given\n"})
		if strings.Contains(r.stderr, "takes no arguments") {
			t.Errorf("rules allow %v HOST: %q; want it to name %s", flag, r.stderr, flag[0])
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	r := ocfetch(t, cliOptions{}, "--root", root, "run", "--deny-read", missing, "--", "true")
	r.want(t, exitUsage, nil, []string{"ocfetch: --deny-read ", "hint: give an existing file or directory"})
	if strings.Contains(r.stderr, "write") {
		t.Errorf("run --deny-read MISSING: hint speaks of writing:\n%s", r.stderr)
	}
	r = ocfetch(t, cliOptions{}, "--root", root, "run", "--allow-write", missing, "--", "true")
	r.want(t, exitUsage, nil, []string{"ocfetch: --allow-write ", "(create it first if COMMAND is to write there)"})
}

// TestSettingsUnusableHint: a settings.json that cannot be read as a file
// (a symlink there, or at .oc_chat) is refused with a hint about the file
// itself, not about its JSON content.
func TestSettingsUnusableHint(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	settings := wsOf(t, root).SettingsPath()
	target := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, target, `{"schema_version": 1, "risk_profile": "permissive"}`)
	os.Remove(settings)
	if err := os.Symlink(target, settings); err != nil {
		t.Skip("symlink:", err)
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", s.url("/"))
	r.want(t, exitRefused, nil, []string{"ocfetch: settings_invalid: ", "symlink", "hint: make " + settings + " a regular file"})
	if strings.Contains(r.stderr, `hint: write {"schema_version"`) {
		t.Errorf("the hint speaks of the file's content, not of the symlink:\n%s", r.stderr)
	}
}

// TestAllowlistUnusableHint: a local_fetch.json that cannot be read as a
// file (a symlink) is refused with a hint about the file itself.
func TestAllowlistUnusableHint(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	path := wsOf(t, root).LocalFetchPath()
	target := filepath.Join(t.TempDir(), "local_fetch.json")
	writeFile(t, target, `{"schema_version": 1, "ports": [3000]}`)
	os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Skip("symlink:", err)
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "--yes", s.url("/"))
	r.want(t, exitRefused, nil, []string{"ocfetch: local_allowlist_invalid: ", "symlink", "hint: make " + path + " a regular file"})
}

// TestCompletionUnknownShell: `ocfetch completion tcsh` is a usage error
// (exit 2, named, with a hint), as an unknown subcommand of every other
// group is, not the help text and exit 0.
func TestCompletionUnknownShell(t *testing.T) {
	r := ocfetch(t, cliOptions{}, "completion", "tcsh")
	r.want(t, exitUsage, nil, []string{"ocfetch: unknown command \"tcsh\" for \"ocfetch completion\"\n", "hint: run 'ocfetch completion --help' for usage"})
	ocfetch(t, cliOptions{}, "completion").want(t, exitOK, []string{"ocfetch completion [command]"}, nil)
}
