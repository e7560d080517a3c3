package main

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/buildinfo"
)

func TestVersion(t *testing.T) {
	r := ocfetch(t, cliOptions{}, "version")
	r.want(t, exitOK, nil, nil)
	re := regexp.MustCompile(`^ocfetch \S+( \((commit [0-9a-f]{12})?(, )?(built \S+)?\))? ` + regexp.QuoteMeta(runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) + "\n$")
	if !re.MatchString(r.stdout) {
		t.Errorf("version = %q; want it to match %s", r.stdout, re)
	}
	// What a release build links in (.goreleaser.yaml's ldflags).
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T10:00:00Z"
	want := "ocfetch 1.2.3 (commit 0123456789ab, built 2026-12-01T10:00:00Z) " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if r := ocfetch(t, cliOptions{}, "version"); r.code != exitOK || r.stdout != want {
		t.Errorf("version = %d, %q; want 0, %q", r.code, r.stdout, want)
	}
	r = ocfetch(t, cliOptions{}, "version", "--json")
	var got buildinfo.Info
	decodeStrict(t, r.stdout, &got)
	wantInfo := buildinfo.Info{Version: "1.2.3", Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if got != wantInfo {
		t.Errorf("version --json = %+v; want %+v", got, wantInfo)
	}
	if plainVersion() != "1.2.3" {
		t.Errorf("plainVersion (the MCP server's) = %q; want 1.2.3", plainVersion())
	}
	if r2 := ocfetch(t, cliOptions{}, "--version"); r2.code != exitOK || r2.stdout != currentBuild().String()+"\n" {
		t.Errorf("--version = %d, %q; want 0, %q", r2.code, r2.stdout, currentBuild().String()+"\n")
	}
	ocfetch(t, cliOptions{}, "version", "extra").want(t, exitUsage, nil, []string{"takes no arguments"})
}

// TestHelpShowsExamples: every command's --help has an Examples section
// and exits 0.
func TestHelpShowsExamples(t *testing.T) {
	for _, cmd := range [][]string{
		{}, {"get"}, {"rules"}, {"rules", "list"}, {"rules", "allow"}, {"rules", "deny"}, {"rules", "remove"},
		{"local"}, {"local", "show"}, {"local", "allow"}, {"local", "revoke"}, {"audit"}, {"demo"},
		{"version"}, {"mcp"}, {"proxy"}, {"run"}, {"explain"}, {"profile"}, {"profile", "show"}, {"profile", "set"},
		{"completion"}, {"trust"}, {"search"},
	} {
		r := ocfetch(t, cliOptions{}, append(cmd, "--help")...)
		r.want(t, exitOK, []string{"Usage:", "Examples:\n  "}, nil)
	}
	// Bare group commands print their help too.
	ocfetch(t, cliOptions{}, "rules").want(t, exitOK, []string{"Available Commands:", "allow", "deny", "remove", "list"}, nil)
	ocfetch(t, cliOptions{}, "local").want(t, exitOK, []string{"Available Commands:", "show", "revoke"}, nil)
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := ocfetch(t, cliOptions{}, "completion", shell)
		if r.code != exitOK || !strings.Contains(r.stdout, "ocfetch") || len(r.stdout) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes", shell, r.code, len(r.stdout))
		}
	}
	// Cobra's hidden __complete command answers what a shell would ask.
	r := ocfetch(t, cliOptions{}, "__complete", "rules", "")
	for _, sub := range []string{"allow", "deny", "list", "remove"} {
		if !strings.Contains(r.stdout, sub+"\t") {
			t.Errorf("completing `ocfetch rules ` does not offer %s:\n%s", sub, r.stdout)
		}
	}
	r = ocfetch(t, cliOptions{}, "__complete", "get", "--for")
	if !strings.Contains(r.stdout, "--format") {
		t.Errorf("completing `ocfetch get --for` does not offer --format:\n%s", r.stdout)
	}
	r = ocfetch(t, cliOptions{}, "__complete", "get", "--format", "")
	for _, f := range []string{"markdown\n", "text\n", "raw\n"} {
		if !strings.Contains(r.stdout, f) {
			t.Errorf("completing --format does not offer %q:\n%s", f, r.stdout)
		}
	}
}
