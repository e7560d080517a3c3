package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/explain"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// explainWS is a permissive workspace with local port 3000, rules of
// every kind, and nothing else.
func explainWS(t testing.TB) string {
	dir := newUntrustedRoot(t)
	trustRoot(t, dir)
	ws := wsOf(t, dir)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "permissive"}`)
	writeFile(t, ws.LocalFetchPath(), `{"schema_version": 1, "ports": [3000]}`)
	for _, r := range []struct {
		host string
		port uint16
		d    rules.Decision
	}{
		{"allowed.example", 443, rules.Allow},
		{"plain.example", 80, rules.Allow},
		{"localhost", 3000, rules.Allow},
		{"93.184.216.34", 443, rules.Allow},
		{"denied.example", 443, rules.Deny},
		{"2606:4700::1111", 443, rules.Deny},
	} {
		if err := rules.Add(context.Background(), ws, rules.Rule{Capability: capability.KindNetwork,
			Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: r.host, Port: r.port}, Decision: r.d}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExplainVerdicts: explain for every kind of verdict, as one JSON
// object naming the layer, rule, file and reason.
func TestExplainVerdicts(t *testing.T) {
	root := explainWS(t)
	ws := wsOf(t, root)
	tests := []struct {
		url, decision, layer, rule, file string
		reason                           refusal.Code
		proxy                            bool
	}{
		{"https://allowed.example/x?secret=1", "allow", "workspace", "allow allowed.example:443", ws.RulesPath(), "", false},
		{"https://denied.example/", "deny", "workspace", "deny denied.example:443", ws.RulesPath(), refusal.DeniedByRule, false},
		{"https://[2606:4700::1111]/", "deny", "workspace", "deny [2606:4700::1111]:443", ws.RulesPath(), refusal.DeniedByRule, false},
		{"https://new.example/", "ask", "builtin", "", "", refusal.NotApproved, false},
		{"http://plain.example/", "deny", "builtin", "", "", refusal.HTTPSRequired, false},
		{"http://plain.example/", "allow", "workspace", "allow plain.example:80", ws.RulesPath(), "", true},
		{"https://new.example/", "ask", "builtin", "", "", refusal.NotApproved, true},
		{"https://169.254.169.254/", "deny", "builtin", "", "", refusal.AddressNotPublic, false},
		{"http://localhost:3000/", "allow", "workspace", "allow localhost:3000", ws.RulesPath(), "", false},
		{"http://localhost:8080/", "deny", "workspace", "", ws.LocalFetchPath(), refusal.LocalPortNotAllowed, false},
		{"http://１２７.０.０.１:3000/", "refused", "", "", "", refusal.InvalidHost, false},
		{"ftp://example.com/", "refused", "", "", "", refusal.SchemeNotAllowed, false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			args := []string{"--root", root, "explain", "--json", tc.url}
			if tc.proxy {
				args = append(args, "--proxy")
			}
			r := ocfetch(t, cliOptions{}, args...)
			if r.code != exitOK {
				t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
			}
			var e explain.Explanation
			decodeStrict(t, r.stdout, &e)
			if e.Decision != tc.decision || e.Reason != tc.reason || e.Rule != tc.rule || e.File != tc.file || (tc.layer != "" && e.Layer != tc.layer) {
				t.Errorf("explain %s = %+v; want decision %s layer %s rule %q file %q reason %q", tc.url, e, tc.decision, tc.layer, tc.rule, tc.file, tc.reason)
			}
			if strings.Contains(r.stdout, "secret") {
				t.Errorf("explain echoes the query: %s", r.stdout)
			}
		})
	}
	// The human form names the IANA range and local mode's file and port.
	r := ocfetch(t, cliOptions{}, "--root", root, "explain", "https://10.1.2.3/")
	r.want(t, exitOK, []string{"decision:   deny", "10.1.2.3 is in 10.0.0.0/8 (private use)"}, nil)
	r = ocfetch(t, cliOptions{}, "--root", root, "explain", "http://localhost:3000/")
	r.want(t, exitOK, []string{"decision:   allow", "admits port 3000 (" + ws.LocalFetchPath() + ")"}, nil)
}

// shellWords splits a hint's command as a POSIX shell would, for the
// quoting safetext.ShellQuote writes: plain words and '…' words.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	in, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, have = !in, true
		case c == ' ' && !in:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		case !in && strings.IndexByte(";&|$`()<>\"\\", c) >= 0:
			t.Fatalf("unquoted shell metacharacter %q in %q", c, s)
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if in {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

// TestIPv6DenyHintRemovesExactlyThatRule: the printed hint for a deny rule
// on an IPv6 host, run, removes that rule and no other.
func TestIPv6DenyHintRemovesExactlyThatRule(t *testing.T) {
	root := explainWS(t)
	ws := wsOf(t, root)
	before, err := rules.Load(ws)
	if err != nil {
		t.Fatal(err)
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "get", "https://[2606:4700::1111]/")
	r.want(t, exitRefused, nil, []string{"denied_by_rule"})
	_, cmdline, ok := strings.Cut(r.stderr, "remove the rule with: ")
	if !ok {
		t.Fatalf("no remove hint in %q", r.stderr)
	}
	cmdline, _, _ = strings.Cut(cmdline, "\n")
	words := shellWords(t, cmdline)
	if len(words) < 2 || words[0] != "ocfetch" {
		t.Fatalf("hint command %q", cmdline)
	}
	ocfetch(t, cliOptions{}, append([]string{"--root", root}, words[1:]...)...).want(t, exitOK, nil, nil)
	after, err := rules.Load(ws)
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	kept := map[string]bool{}
	for _, r := range after.Rules() {
		kept[r.String()] = true
	}
	for _, r := range before.Rules() {
		if !kept[r.String()] {
			removed = append(removed, r.String())
		}
	}
	if len(removed) != 1 || removed[0] != "deny [2606:4700::1111]:443" || len(after.Rules()) != len(before.Rules())-1 {
		t.Errorf("the hint removed %v; want exactly deny [2606:4700::1111]:443", removed)
	}
}

// recorder resolves every name to one public address and refuses every
// dial, recording both: what the transport would have reached.
type recorder struct {
	mu       sync.Mutex
	resolved []string
	dialed   []string
}

func (r *recorder) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resolved = append(r.resolved, host)
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

func (r *recorder) dial(_ context.Context, _, address string) (net.Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dialed = append(r.dialed, address)
	return nil, errors.New("the recording dialer refuses")
}

// explainEqualsGet checks, for one URL, that explain's verdict is what get
// does, and that the host Decide decided on is the host the transport
// resolves or dials (a recording dialer that refuses: nothing is sent).
func explainEqualsGet(t *testing.T, root, rawURL string) {
	t.Helper()
	ex := ocfetch(t, cliOptions{}, "--root", root, "explain", "--json", rawURL)
	if ex.code != exitOK {
		if ex.code == exitUsage { // cobra refused the argument (e.g. it starts with '-')
			return
		}
		t.Fatalf("explain %q: exit %d %s", rawURL, ex.code, ex.stderr)
	}
	var e explain.Explanation
	decodeStrict(t, ex.stdout, &e)
	rec := &recorder{}
	g := ocfetch(t, cliOptions{egress: func(o *egress.Options) { o.Resolver, o.Dial = rec, rec.dial }},
		"--root", root, "get", "--json", rawURL)
	var ge struct {
		OK    bool       `json:"ok"`
		Error errorField `json:"error"`
	}
	if err := json.Unmarshal([]byte(g.stdout), &ge); err != nil {
		if g.code == exitUsage {
			return // a URL that is no flag value (cobra): not a decision
		}
		t.Fatalf("get --json %q: %v\n%s", rawURL, err, g.stdout)
	}
	reached := len(rec.resolved)+len(rec.dialed) > 0
	switch e.Decision {
	case "allow":
		if !reached {
			t.Fatalf("%q: explain says allow, but get reached nothing (%s)", rawURL, ge.Error.Reason)
		}
		want := e.Target.Host()
		for _, h := range rec.resolved {
			if h != want {
				t.Fatalf("%q: decided on %s, but the transport resolved %s", rawURL, want, h)
			}
		}
		for _, a := range rec.dialed {
			ap, err := netip.ParseAddrPort(a)
			if err != nil || ap.Port() != e.Target.Port() {
				t.Fatalf("%q: decided on %s, but the transport dialed %s", rawURL, e.Target, a)
			}
			if len(rec.resolved) == 0 && !capability.IsLocalHost(want) && ap.Addr().String() != want {
				t.Fatalf("%q: decided on %s, but the transport dialed %s", rawURL, e.Target, a)
			}
		}
	case "ask":
		if reached || ge.Error.Reason != refusal.NotApproved {
			t.Fatalf("%q: explain says ask; get %s (reached %v)", rawURL, ge.Error.Reason, reached)
		}
	default:
		if reached || ge.Error.Reason != e.Reason {
			t.Fatalf("%q: explain says %s %s; get %s (reached %v)", rawURL, e.Decision, e.Reason, ge.Error.Reason, reached)
		}
	}
}

func TestExplainEqualsGet(t *testing.T) {
	root := explainWS(t)
	for _, u := range explainSeeds {
		t.Run(u, func(t *testing.T) { explainEqualsGet(t, root, u) })
	}
}

var explainSeeds = []string{
	"https://allowed.example/a?b", "https://ALLOWED.example./", "https://denied.example/",
	"https://new.example/", "http://plain.example/", "https://93.184.216.34/",
	"https://10.0.0.1/", "https://[2606:4700::1111]/", "http://localhost:3000/",
	"http://[::1]:3000/", "http://127.0.0.1:3000/", "http://localhost:8080/", "http://localhost/",
	"http://127.0.0.2:3000/", "http://１２７.０.０.１:3000/", "http://localho\u017ft:3000/",
	"https://x;touch$IFS\"pwned\";$(id>p)<a>b.example/", "https://%80.example/", "ftp://example.com/",
	"https://user:pw@allowed.example/", "https://allowed.example:0/", "not a url",
}

// FuzzExplainEqualsGet: for any URL, explain's verdict is what get does,
// and the host decided on is the host the transport dials.
func FuzzExplainEqualsGet(f *testing.F) {
	for _, s := range explainSeeds {
		f.Add(s)
	}
	root := explainWS(f)
	f.Fuzz(func(t *testing.T, u string) {
		if len(u) > 2048 || strings.ContainsAny(u, "\x00") {
			return
		}
		explainEqualsGet(t, root, u)
	})
}

// TestLeadingZeroPortEveryFrontEnd: a port written with a leading zero is
// refused, in every command that reads a port, by a message that says so
// and names the port meant (it used to read "is not 1–65535").
func TestLeadingZeroPortEveryFrontEnd(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"explain", "http://127.0.0.1:018090/"}, exitOK, `reason:     invalid_arguments: the URL's port "018090" has a leading zero; write it as 18090`, ""},
		{[]string{"explain", "--proxy", "http://127.0.0.1:018090/"}, exitOK, `the URL's port "018090" has a leading zero; write it as 18090`, ""},
		{[]string{"explain", "--json", "https://example.com:0443/"}, exitOK, `"message": "the URL's port \"0443\" has a leading zero; write it as 443"`, ""},
		{[]string{"get", "http://127.0.0.1:018090/"}, exitUsage, "", `ocfetch: invalid_arguments: the URL's port "018090" has a leading zero; write it as 18090`},
		{[]string{"rules", "allow", "example.com:0443"}, exitUsage, "", `port "0443" has a leading zero; write it as 443`},
		{[]string{"local", "allow", "03000"}, exitUsage, "", `ocfetch: port "03000" has a leading zero; write it as 3000`},
		{[]string{"get", "--upstream-proxy", "http://proxy.corp:03128", "https://example.com/"}, exitUsage, "", `port "03128" has a leading zero; write it as 3128`},
		{[]string{"mcp", "--http", "127.0.0.1:08931"}, exitUsage, "", `ocfetch: --http 127.0.0.1:08931: port "08931" has a leading zero; write it as 8931`},
		{[]string{"proxy", "--listen", "127.0.0.1:08931"}, exitUsage, "", `ocfetch: --listen 127.0.0.1:08931: port "08931" has a leading zero; write it as 8931`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			var out, errs []string
			if tc.stdout != "" {
				out = []string{tc.stdout}
			}
			if tc.stderr != "" {
				errs = []string{tc.stderr}
			}
			r.want(t, tc.code, out, errs)
			if strings.Contains(r.stdout+r.stderr, "is not 1–65535") {
				t.Errorf("output says the port is not 1–65535:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}

// TestExplainPrintsCLIHints: explain is read by the person at the
// terminal: its hints name this command line, never the MCP tool's JSON
// arguments or the "ask the user" a model is told.
func TestExplainPrintsCLIHints(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct {
		url, hint string
	}{
		{"https://example.com/", "hint:       allow it with: ocfetch rules allow example.com:443\n"},
		{"http://127.0.0.1:018090/", "hint:       " + explain.URLHint + "\n"},
		{"https://example.com:99999/", "hint:       " + explain.URLHint + "\n"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, "--root", root, "explain", tc.url)
			r.want(t, exitOK, []string{tc.hint}, nil)
			for _, not := range []string{"JSON object", "ask the user", "max_bytes"} {
				if strings.Contains(r.stdout, not) {
					t.Errorf("explain %s says %q:\n%s", tc.url, not, r.stdout)
				}
			}
		})
	}
}

// TestExplainLocalProfileNamesItsFile: local_profile_not_permissive is
// decided by the profile, so explain names where the profile came from —
// settings.json when it was read from there, no file for a --profile flag
// or the default — never local_fetch.json, whose ports were not read.
func TestExplainLocalProfileNamesItsFile(t *testing.T) {
	root := explainWS(t)
	ws := wsOf(t, root)
	for _, tc := range []struct {
		name     string
		settings string // "" removes settings.json
		flags    []string
		file     string
	}{
		{"from settings.json", `{"schema_version": 1, "risk_profile": "standard"}`, nil, ws.SettingsPath()},
		{"from --profile", `{"schema_version": 1, "risk_profile": "permissive"}`, []string{"--profile", "standard"}, ""},
		{"the default", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.settings == "" {
				os.Remove(ws.SettingsPath())
			} else {
				writeFile(t, ws.SettingsPath(), tc.settings)
			}
			args := append([]string{"--root", root}, tc.flags...)
			r := ocfetch(t, cliOptions{}, append(args, "explain", "--json", "http://localhost:3000/")...)
			var e explain.Explanation
			decodeStrict(t, r.stdout, &e)
			if e.Reason != refusal.LocalProfileNotPermissive || e.File != tc.file {
				t.Errorf("explain: reason %q file %q; want local_profile_not_permissive, file %q", e.Reason, e.File, tc.file)
			}
			r = ocfetch(t, cliOptions{}, append(args, "explain", "http://localhost:3000/")...)
			if strings.Contains(r.stdout, ws.LocalFetchPath()) {
				t.Errorf("explain names %s for a profile refusal:\n%s", ws.LocalFetchPath(), r.stdout)
			}
			if tc.file != "" && !strings.Contains(r.stdout, "file:       "+tc.file) {
				t.Errorf("explain does not name %s:\n%s", tc.file, r.stdout)
			}
		})
	}
}
