package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRules(t *testing.T) {
	root := newRoot(t)
	path := wsOf(t, root).RulesPath()
	userPath := filepath.Join(testLayers(t).configDir, "rules.json")
	steps := []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"rules", "list"}, exitOK, "no rules in " + path + " or " + userPath + "\n"},
		{[]string{"rules", "allow", "Example.COM."}, exitOK, "trusted: " + root + " (ocfetch created its .oc_chat/; `ocfetch trust --revoke` undoes this)\n" +
			"added: allow example.com:443 to " + path + "\n"},
		{[]string{"rules", "allow", "example.com"}, exitOK, "unchanged: allow example.com:443 is already in " + path + "\n"},
		{[]string{"rules", "allow", "*.example.com:8443"}, exitOK, "added: allow *.example.com:8443 to " + path + "\n"},
		{[]string{"rules", "deny", "bücher.example"}, exitOK, "added: deny xn--bcher-kva.example:443 to " + path + "\n"},
		{[]string{"rules", "deny", "example.com:443"}, exitOK, "replaced: allow example.com:443 with deny example.com:443 in " + path + "\n"},
		{[]string{"rules", "allow", "[2606:4700::1111]:8080"}, exitOK, "added: allow [2606:4700::1111]:8080 to " + path + "\n"},
		{[]string{"rules", "list"}, exitOK, "" +
			"LAYER      DECISION  HOST                   PORT\n" +
			"workspace  allow     *.example.com          8443\n" +
			"workspace  allow     2606:4700::1111        8080\n" +
			"workspace  deny      example.com            443\n" +
			"workspace  deny      xn--bcher-kva.example  443\n"},
		{[]string{"rules", "remove", "example.com"}, exitOK, "removed: example.com:443 from " + path + "\n"},
		{[]string{"rules", "remove", "example.com"}, exitOK, "unchanged: no rule for example.com:443 in " + path + "\n"},
		{[]string{"rules", "remove", "*.example.com"}, exitOK, "unchanged: no rule for *.example.com:443 in " + path + "\n"},
		{[]string{"rules", "remove", "*.example.com:8443"}, exitOK, "removed: *.example.com:8443 from " + path + "\n"},
	}
	for _, s := range steps {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, s.args...)...)
		if r.code != s.code || r.stdout != s.stdout || r.stderr != "" {
			t.Fatalf("ocfetch %v = exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s", s.args, r.code, r.stdout, r.stderr, s.code, s.stdout)
		}
	}

	r := ocfetch(t, cliOptions{}, "--root", root, "rules", "list", "--json")
	r.want(t, exitOK, nil, nil)
	type rule = struct {
		Decision string `json:"decision"`
		Host     string `json:"host"`
		Port     int    `json:"port"`
		Layer    string `json:"layer"`
		File     string `json:"file"`
	}
	var got struct {
		File     string `json:"file"`
		UserFile string `json:"user_file"`
		Trusted  bool   `json:"trusted"`
		Rules    []rule `json:"rules"`
	}
	decodeStrict(t, r.stdout, &got)
	if got.File != path || got.UserFile != userPath || !got.Trusted {
		t.Errorf("file, user_file, trusted = %q, %q, %v; want %q, %q, true", got.File, got.UserFile, got.Trusted, path, userPath)
	}
	want := []rule{{"allow", "2606:4700::1111", 8080, "workspace", path}, {"deny", "xn--bcher-kva.example", 443, "workspace", path}}
	if d := cmp.Diff(want, got.Rules); d != "" {
		t.Errorf("rules list --json (-want +got):\n%s", d)
	}

	// The file on disk is the documented format.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"schema": "network.target.v1"`; !strings.Contains(string(b), want) {
		t.Errorf("%s = %s; want it to hold %s", path, b, want)
	}
}

func TestRulesListJSONEmpty(t *testing.T) {
	r := ocfetch(t, cliOptions{}, "--root", newRoot(t), "rules", "list", "--json")
	r.want(t, exitOK, []string{`"rules": []`}, nil)
}

func TestRulesBadInput(t *testing.T) {
	root := newRoot(t)
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"rules", "allow"}, "missing HOST[:PORT]"},
		{[]string{"rules", "allow", "a.example", "b.example"}, "2 arguments given; want 1"},
		{[]string{"rules", "allow", "bad host!"}, "invalid host"},
		{[]string{"rules", "deny", "example.com:0"}, `port "0" is not 1–65535`},
		{[]string{"rules", "deny", "example.com:http"}, `port "http" is not 1–65535`},
		{[]string{"rules", "remove", "*"}, "--public-https"},
		{[]string{"rules", "allow", "*.*.example.com"}, "rule target"},
		{[]string{"rules", "list", "extra"}, "takes no arguments"},
		{[]string{"rules", "bless", "example.com"}, `unknown command "bless"`},
	}
	for _, tc := range tests {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
		r.want(t, exitUsage, nil, []string{tc.msg, "\nhint: "})
	}
	if _, err := os.Stat(wsOf(t, root).Dir()); !os.IsNotExist(err) {
		t.Errorf("bad rule commands created %s", wsOf(t, root).Dir())
	}
}

// TestRulesTargetQuotesNoSecret: a refused rule target names the part
// that is wrong and never echoes a URL's password, path or query.
func TestRulesTargetQuotesNoSecret(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct{ arg, msg string }{
		{"http://u:secret@/", "a URL with credentials (user:pass@) is not a rule"},
		{"ftp://u:secret@example.com/secret?secret", `scheme "ftp" cannot be fetched`},
		{"https:///secret?secret", "it names no host"},
		{"u:secret@example.com", "credentials (user@ or user:pass@) are not part of a host"},
	} {
		r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", tc.arg)
		r.want(t, exitUsage, nil, []string{tc.msg, "\nhint: "})
		if strings.Contains(r.stderr, "secret") {
			t.Errorf("rules allow %q: stderr repeats the secret:\n%s", tc.arg, r.stderr)
		}
	}
}

// TestRulesURLTarget: a pasted URL is understood for the host and port it
// reaches (http:// is port 80, https:// 443, an explicit port wins); other
// schemes and credentials are refused with "write HOST[:PORT]".
func TestRulesURLTarget(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct {
		arg, stdout, stderr string
	}{
		{"http://example.com/", "added: allow example.com:80", ""},
		{"https://Example.COM", "added: allow example.com:443", ""},
		{"https://example.com:8443/docs/page?q=1", "added: allow example.com:8443", "note: a rule covers the whole host and port"},
		{"http://[2606:4700::1111]/", "added: allow [2606:4700::1111]:80", ""},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", tc.arg)
			var stderr []string
			if tc.stderr != "" {
				stderr = []string{tc.stderr}
			}
			r.want(t, exitOK, []string{tc.stdout}, stderr)
			if strings.Contains(r.stdout+r.stderr, "docs") || strings.Contains(r.stdout+r.stderr, "q=1") {
				t.Errorf("output repeats the path or query: %q %q", r.stdout, r.stderr)
			}
		})
	}
	ocfetch(t, cliOptions{}, "--root", root, "rules", "remove", "http://example.com/").want(t, exitOK, []string{"removed: example.com:80"}, nil)
	for _, arg := range []string{"ftp://example.com/", "http://user:pw@example.com/", "https:///nohost"} {
		r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", arg)
		r.want(t, exitUsage, nil, []string{"hint: write HOST[:PORT]"})
		if strings.Contains(r.stderr, "pw") {
			t.Errorf("stderr repeats the password: %q", r.stderr)
		}
	}
}

// TestRulesAllowGuardedAddress: an allow rule for an address the egress
// guard always refuses is refused, naming the range; a deny rule for it,
// and allow rules for local mode's loopback hosts, are fine.
func TestRulesAllowGuardedAddress(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct{ arg, want string }{
		{"10.0.0.1", "10.0.0.1 is in 10.0.0.0/8 (private use)"},
		{"169.254.169.254:80", "169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{"http://192.168.1.1:8080/", "192.168.1.1 is in 192.168.0.0/16 (private use)"},
		{"[fd00:ec2::254]", "fd00:ec2::254 is in fc00::/7"},
		{"127.0.0.2:3000", "127.0.0.2 is in 127.0.0.0/8 (loopback)"},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", tc.arg)
			r.want(t, exitUsage, nil, []string{"the egress guard always refuses it", tc.want, "hint: only public addresses", "ocfetch local allow PORT"})
		})
	}
	ocfetch(t, cliOptions{}, "--root", root, "rules", "deny", "10.0.0.1").want(t, exitOK, []string{"added: deny 10.0.0.1:443"}, nil)
	for _, arg := range []string{"127.0.0.1:3000", "localhost:3000", "[::1]:3000", "93.184.216.34"} {
		ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", arg).want(t, exitOK, []string{"added: allow"}, nil)
	}
}

// TestRulesSavedLogsL1: a rule saved or removed is an L1 diagnostics line
// (diag: "L1 errors and major events (startup, a rule saved …)"), domain
// RULES, with the rule's host:port, its decision and the file — shown
// at -v, the lowest verbosity.
func TestRulesSavedLogsL1(t *testing.T) {
	root := newRoot(t)
	ws := wsOf(t, root)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"rules", "allow", "example.com"}, []string{"level=L1", "domain=RULES", `msg="rule saved"`, "target=example.com:443", "decision=allow", "file=" + ws.RulesPath()}},
		{[]string{"rules", "deny", "example.com:8443"}, []string{"level=L1", "domain=RULES", `msg="rule saved"`, "target=example.com:8443", "decision=deny", "file=" + ws.RulesPath()}},
		{[]string{"rules", "remove", "example.com"}, []string{"level=L1", "domain=RULES", `msg="rule removed"`, "target=example.com:443", "file=" + ws.RulesPath()}},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"-v", "--root", root}, tc.args...)...)
		r.want(t, exitOK, nil, nil)
		var line string
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.Contains(l, "domain=RULES") {
				line = l
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%v: the RULES line %q does not hold %q; stderr:\n%s", tc.args, line, w, r.stderr)
			}
		}
	}
}
