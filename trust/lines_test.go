package trust_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
)

// Lines lists every grant with the file that gives it, then every
// restriction; an upstream proxy is made safe to show.
func TestGrantsLines(t *testing.T) {
	host := func(h string) capability.HostPattern { return capability.HostPattern{Host: h} }
	g := trust.Grants{
		Workspace: "/p", SettingsFile: "/p/s.json", LocalFetchFile: "/p/l.json", RulesFile: "/p/r.json",
		Profile: risk.Permissive, Upstream: "http://proxy.example:3128\x1b[2J", Ports: localfetch.Ports{3000, 8080},
		Allow:  []rules.Rule{rules.NewRule(rules.Allow, host("a.example"), 443)},
		Strict: true,
		Deny:   []rules.Rule{rules.NewRule(rules.Deny, host("b.example"), 8443)},
	}
	grants, restricts := g.Lines()
	wantGrants := []trust.GrantLine{
		{What: "profile permissive (local mode)", File: "/p/s.json"},
		{What: "upstream_proxy http://proxy.example:3128\ufffd[2J (public connections go through it)", File: "/p/s.json"},
		{What: "loopback ports " + g.Ports.String(), File: "/p/l.json"},
		{What: "allow a.example:443", File: "/p/r.json"},
	}
	wantRestricts := []trust.GrantLine{
		{What: "profile strict", File: "/p/s.json"},
		{What: "deny b.example:8443", File: "/p/r.json"},
	}
	if d := cmp.Diff(wantGrants, grants); d != "" {
		t.Errorf("grants (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantRestricts, restricts); d != "" {
		t.Errorf("restricts (-want +got):\n%s", d)
	}
	if grants, restricts := (trust.Grants{}).Lines(); grants != nil || restricts != nil {
		t.Errorf("empty Grants: Lines() = %v, %v; want none", grants, restricts)
	}
}

// UntrustedNote names why an entry does not trust its workspace, and says
// nothing when it does or when there is no entry.
func TestUntrustedNote(t *testing.T) {
	at := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	current := trust.Entry{Path: "/p", Incarnation: "birth:1", TrustedAt: at}
	outdated := trust.Entry{Path: "/p", TrustedAt: at}
	for _, tc := range []struct {
		name string
		st   trust.Status
		want string
	}{
		{"no entry", trust.Status{}, ""},
		{"trusted", trust.Status{Found: true, Entry: current, State: trust.Present}, ""},
		{"replaced", trust.Status{Found: true, Entry: current, State: trust.Replaced},
			"was replaced since it was trusted on 2026-11-30: the directory there now is another one, and it is not trusted"},
		{"outdated", trust.Status{Found: true, Entry: outdated, State: trust.Present},
			"was trusted by an older ocfetch, which did not record which directory it was: it is not trusted until you trust it again"},
		{"missing", trust.Status{Found: true, Entry: current, State: trust.Missing}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.st.UntrustedNote(); got != tc.want {
				t.Errorf("UntrustedNote() = %q; want %q", got, tc.want)
			}
		})
	}
}

// Command is the one wording of the command that trusts a workspace, the
// root shell-quoted; the refusals' hints name it.
func TestCommand(t *testing.T) {
	for _, tc := range []struct{ root, want string }{
		{"/p/proj", "ocfetch trust --root /p/proj"},
		{"/p/my proj", "ocfetch trust --root '/p/my proj'"},
	} {
		if got := trust.Command(tc.root); got != tc.want {
			t.Errorf("Command(%q) = %q; want %q", tc.root, got, tc.want)
		}
		if r := trust.Untrusted(tc.root, "/f", "port 1"); !strings.Contains(r.Hint, "`"+tc.want+"`") {
			t.Errorf("Untrusted(%q).Hint = %q; want it to name `%s`", tc.root, r.Hint, tc.want)
		}
	}
}
