package main

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 but still functional, and the issue asks for the repository as the client's root.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

// cloneFiles writes, by hand, what a malicious repository ships in its
// .oc_chat/: every grant file (profile permissive, the service's port, an
// allow rule for it, an upstream proxy is tested in upstream_test) and a
// deny rule.
func cloneFiles(t *testing.T, root string, port int) {
	t.Helper()
	ws := wsOf(t, root)
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "permissive"}`)
	writeFile(t, ws.LocalFetchPath(), fmt.Sprintf(`{"schema_version": 1, "ports": [%d]}`, port))
	writeFile(t, ws.RulesPath(), fmt.Sprintf(`{"schema_version": 1, "rules": [
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": %d}, "decision": "allow"},
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "tracker.example", "port": 443}, "decision": "deny"}]}`, port))
}

// runningProxy is `ocfetch proxy` serving root in-process.
type runningProxy struct {
	client *http.Client
	stop   func()
}

func startProxy(t *testing.T, root string) runningProxy {
	t.Helper()
	var stdout, stderr testio.SyncBuffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.layers = testLayers(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, a, []string{"--root", root, "proxy", "--listen", "127.0.0.1:0", "--auth", "none"})
	}()
	listening := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("the proxy did not say where it listens; stderr:\n%s", stderr.String())
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr})}, Timeout: 5 * time.Second}
	return runningProxy{client: c, stop: func() {
		c.CloseIdleConnections()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not stop")
		}
	}}
}

// proxyGet returns the status and X-Ocfetch-Reason of a GET through p.
func (p runningProxy) get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := p.client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Ocfetch-Reason")
}

// mcpFetch runs `ocfetch mcp` without --root, the client declaring root as
// its one file:// root, and calls fetch once; it returns the text.
func mcpFetch(t *testing.T, root, target string) (isError bool, text string, instructions string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testio.SyncBuffer
	a := newApp(inR, outW, &stderr)
	a.layers = testLayers(t)
	done := make(chan int, 1)
	go func() {
		code := execute(context.Background(), a, []string{"mcp"})
		outW.Close()
		done <- code
	}()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "clone-test", Version: "v0"}, nil)
	client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: root}).String(), Name: "repo"})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if r := cs.InitializeResult(); r != nil {
		instructions = r.Instructions
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": target, "method": "POST", "body": "FLUSHALL"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	cs.Close()
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ocfetch mcp did not stop")
	}
	return res.IsError, b.String(), instructions
}

// TestMaliciousClone is issue 12's "malicious clone": a repository that
// ships every grant file is refused workspace_untrusted through get,
// through the MCP server with the repository as the client's root, and
// through the proxy, and nothing reaches the loopback service; its deny
// rule and a shipped strict still apply; after `trust --yes` the same
// calls go through; after `trust --revoke` they are refused again.
func TestMaliciousClone(t *testing.T) {
	s := newSite(t) // the "Redis-like" service on loopback
	root := newUntrustedRoot(t)
	cloneFiles(t, root, s.port)
	ws := wsOf(t, root)

	refusedEverywhere := func(when string) {
		t.Helper()
		for _, args := range [][]string{
			{"get", "--yes", "-d", "FLUSHALL", s.url("/")},
			{"--profile", "permissive", "get", "--yes", s.url("/")},
		} {
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
			r.want(t, exitRefused, nil, []string{
				"ocfetch: workspace_untrusted: workspace " + root + " is not trusted",
				ws.LocalFetchPath(),
				"hint: if you trust this workspace's files, run `ocfetch trust --root " + root + "`",
			})
		}
		isErr, text, instr := mcpFetch(t, root, s.url("/"))
		if !isErr || !strings.HasPrefix(text, "workspace_untrusted: workspace "+root) || !strings.Contains(text, "hint: ask the user to run: ocfetch trust --root "+root+" if they trust this workspace's files") {
			t.Errorf("%s: MCP fetch = error %v, %q; want workspace_untrusted naming the workspace, asking the user to run the trust command", when, isErr, text)
		}
		if !strings.Contains(instr, "workspace_untrusted") {
			t.Errorf("%s: MCP instructions do not say how an untrusted workspace is refused: %q", when, instr)
		}
		p := startProxy(t, root)
		code, reason := p.get(t, s.url("/"))
		p.stop()
		if code != http.StatusForbidden || reason != "workspace_untrusted" {
			t.Errorf("%s: proxy = %d %q; want 403 workspace_untrusted", when, code, reason)
		}
		if n := len(s.requests()); n != 0 {
			t.Fatalf("%s: the loopback service got %d requests; want none", when, n)
		}
	}
	refusedEverywhere("cloned")

	// Restrictions apply untrusted: the shipped deny rule, and a strict.
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", "https://tracker.example/").
		want(t, exitRefused, nil, []string{"ocfetch: denied_by_rule: tracker.example:443 is denied by the rule", ws.RulesPath()})
	strict := newUntrustedRoot(t)
	writeFile(t, wsOf(t, strict).SettingsPath(), `{"schema_version": 1, "risk_profile": "strict"}`)
	ocfetch(t, cliOptions{}, "--root", strict, "get", "--yes", "https://new.example/").
		want(t, exitRefused, nil, []string{"ocfetch: not_approved: new.example:443 is not covered by a saved rule, and profile strict accepts saved rules only"})

	// Trusted: the same calls go through.
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--yes").want(t, exitOK, []string{"trusted: " + root}, nil)
	ocfetch(t, cliOptions{}, "--root", root, "get", "-d", "x", s.url("/")).want(t, exitOK, []string{"HTTP 200 OK"}, nil)
	if isErr, text, instr := mcpFetch(t, root, s.url("/")); isErr {
		t.Errorf("trusted: MCP fetch = %q; want the page", text)
	} else if !strings.Contains(instr, "Whether the user trusts that workspace is checked on every call") {
		t.Errorf("MCP instructions without --root: %q", instr)
	}
	p := startProxy(t, root)
	if code, reason := p.get(t, s.url("/")); code != http.StatusOK {
		t.Errorf("trusted: proxy = %d %q; want 200", code, reason)
	}
	p.stop()
	if n := len(s.requests()); n != 3 {
		t.Errorf("trusted: the service got %d requests; want 3 (get, MCP, proxy)", n)
	}
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", "https://tracker.example/").want(t, exitRefused, nil, []string{"denied_by_rule"})

	// Revoked: refused again, at once.
	ocfetch(t, cliOptions{}, "--root", root, "trust", "--revoke").want(t, exitOK, []string{"revoked: " + root}, nil)
	s.reset()
	refusedEverywhere("revoked")
}

// TestFirstUse: in an empty directory, the first local allow, rules allow
// and profile set need no trust command, and get then works — also when
// the very first command was a get whose audit line created .oc_chat/.
func TestFirstUse(t *testing.T) {
	s := newSite(t)
	for _, first := range []string{"local allow", "get"} {
		t.Run(first, func(t *testing.T) {
			root := newUntrustedRoot(t)
			if first == "get" {
				ocfetch(t, cliOptions{}, "--root", root, "get", s.url("/")).want(t, exitRefused, nil, []string{"local_profile_not_permissive"})
				if _, err := os.Stat(filepath.Join(root, ".oc_chat", "audit.jsonl")); err != nil {
					t.Fatalf("the first get wrote no audit line: %v", err)
				}
			}
			ocfetch(t, cliOptions{}, "--root", root, "local", "allow", fmt.Sprint(s.port)).want(t, exitOK, nil, nil)
			ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", fmt.Sprintf("127.0.0.1:%d", s.port)).want(t, exitOK, nil, nil)
			ocfetch(t, cliOptions{}, "--root", root, "profile", "set", "permissive").want(t, exitOK, nil, nil)
			ocfetch(t, cliOptions{}, "--root", root, "get", s.url("/")).want(t, exitOK, []string{"HTTP 200 OK"}, nil)
			ocfetch(t, cliOptions{}, "--root", root, "trust", "--list").want(t, exitOK, []string{root}, nil)
		})
	}
}

// TestAuditLineTrustsNothing: a call's audit line that creates .oc_chat/
// (a call a model or a page chose) does not trust the workspace, so grant
// files that arrive later — a `git pull` bringing .oc_chat/local_fetch.json,
// settings.json and rules.json — count for nothing, and the site is never
// reached (review: the first audit line used to trust the checkout).
func TestAuditLineTrustsNothing(t *testing.T) {
	s := newSite(t)
	root := newUntrustedRoot(t)
	ocfetch(t, cliOptions{}, "--root", root, "get", s.url("/")).want(t, exitRefused, nil, []string{"local_profile_not_permissive"})
	if _, err := os.Stat(filepath.Join(root, ".oc_chat", "audit.jsonl")); err != nil {
		t.Fatalf("the get wrote no audit line: %v", err)
	}
	if r := ocfetch(t, cliOptions{}, "trust", "--list"); strings.Contains(r.stdout, root) {
		t.Fatalf("the audit line trusted the workspace:\n%s", r.stdout)
	}
	// The pull: grant files written by someone else.
	dir := filepath.Join(root, ".oc_chat")
	for name, data := range map[string]string{
		"settings.json":    `{"schema_version": 1, "risk_profile": "permissive"}`,
		"local_fetch.json": fmt.Sprintf(`{"schema_version": 1, "ports": [%d]}`, s.port),
		"rules.json":       fmt.Sprintf(`{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": %d}, "decision": "allow"}]}`, s.port),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", s.url("/")).want(t, exitRefused, nil, []string{"workspace_untrusted"})
	if n := len(s.requests()); n != 0 {
		t.Errorf("the site got %d requests; want none", n)
	}
}

// TestManagedLayerCLI: the administrator's policy holds over a trusted
// workspace, --yes, --profile and the terminal, and every refusal names
// the managed layer's file.
func TestManagedLayerCLI(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s) // trusted, port allowlisted, allow rule saved
	l := testLayers(t)
	writeManaged := func(body string) {
		t.Helper()
		writeFile(t, l.managed.Path, body)
		if err := os.Chmod(filepath.Dir(l.managed.Path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	local := s.url("/")
	managedRule := func(d string) string {
		return fmt.Sprintf(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": %d}, "decision": %q}`, s.port, d)
	}
	for _, tc := range []struct {
		name   string
		policy string
		args   []string
		tty    bool
		code   int
		stderr string
	}{
		{"managed deny beats a trusted workspace allow and --yes", `{"max_profile": "permissive", "rules": [` + managedRule("deny") + `]}`,
			[]string{"--profile", "permissive", "get", "--yes", local}, false, exitRefused, "ocfetch: denied_by_rule: 127.0.0.1:"},
		{"max_profile standard disables local mode even with --profile permissive", `{"max_profile": "standard"}`,
			[]string{"--profile", "permissive", "get", "--yes", local}, false, exitRefused, "ocfetch: managed_policy_forbids: local mode is off"},
		{"managed_rules_only refuses a workspace allow and asks nobody", `{"max_profile": "permissive", "managed_rules_only": true}`,
			[]string{"--profile", "permissive", "get", local}, true, exitRefused, "ocfetch: managed_policy_forbids: 127.0.0.1:"},
		{"managed_rules_only admits a managed allow", `{"max_profile": "permissive", "managed_rules_only": true, "rules": [` + managedRule("allow") + `]}`,
			[]string{"--profile", "permissive", "get", local}, false, exitOK, ""},
		{"allow_once false refuses --yes", `{"allow_once": false}`,
			[]string{"get", "--yes", "https://new.example/"}, false, exitRefused, "ocfetch: managed_policy_forbids: new.example:443 is not covered by a saved rule"},
		{"allow_once false asks nobody on a terminal", `{"allow_once": false}`,
			[]string{"get", "https://new.example/"}, true, exitRefused, "(allow_once: false)"},
		{"a malformed managed file refuses everything", `{"max_profile": "lenient"}`,
			[]string{"--profile", "permissive", "get", local}, false, exitRefused, "ocfetch: managed_policy_invalid: managed policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeManaged(tc.policy)
			s.reset()
			r := ocfetch(t, cliOptions{interactive: tc.tty, stdin: "a\n"}, append([]string{"--root", root}, tc.args...)...)
			if tc.code == exitOK {
				r.want(t, exitOK, []string{"HTTP 200 OK"}, nil)
				return
			}
			r.want(t, tc.code, nil, []string{tc.stderr, l.managed.Path})
			if strings.Contains(r.stderr, "[d]eny?") {
				t.Errorf("the user was asked:\n%s", r.stderr)
			}
			if n := len(s.requests()); n != 0 {
				t.Errorf("the site got %d requests", n)
			}
			// explain names the managed layer too.
			if tc.args[len(tc.args)-1] == local {
				e := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "explain", local)
				e.want(t, exitOK, []string{"decision:   deny", "layer:      managed", "layer managed: " + l.managed.Path}, nil)
			}
		})
	}
	writeManaged(`{"require_sandbox": true}`)
	ocfetch(t, cliOptions{}, "--root", root, "run", "--no-sandbox", "--", "true").
		want(t, exitRefused, nil, []string{"ocfetch: managed_policy_forbids: the managed policy " + l.managed.Path + " requires the sandbox"})
}

// TestUserRulesCLI: a user rule admits in an untrusted workspace as in a
// trusted one, and explain names the user layer and its file.
func TestUserRulesCLI(t *testing.T) {
	pub, eo := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "public page") }))
	_ = pub
	userFile := filepath.Join(testLayers(t).configDir, "rules.json")
	ocfetch(t, cliOptions{}, "rules", "allow", "--user", "example.com").want(t, exitOK, nil, nil)
	for name, root := range map[string]string{"untrusted": newUntrustedRoot(t), "trusted": newRoot(t)} {
		t.Run(name, func(t *testing.T) {
			ocfetch(t, cliOptions{egress: eo}, "--root", root, "get", "https://example.com/").want(t, exitOK, []string{"public page"}, nil)
			ocfetch(t, cliOptions{}, "--root", root, "explain", "https://example.com/").
				want(t, exitOK, []string{"decision:   allow", "layer:      user", "file:       " + userFile}, nil)
		})
	}
}

// An "always" answer in a workspace whose .oc_chat/ does not exist yet
// creates it and trusts it, so the saved rule counts on the next call; in
// a cloned (untrusted) workspace the user is told the rule does not count.
func TestAlwaysAnswerTrust(t *testing.T) {
	pub, eo := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "public page") }))
	_ = pub
	fresh := newUntrustedRoot(t)
	ocfetch(t, cliOptions{egress: eo, interactive: true, stdin: "a\n"}, "--root", fresh, "get", "https://example.com/").want(t, exitOK, []string{"public page"}, nil)
	ocfetch(t, cliOptions{egress: eo}, "--root", fresh, "get", "https://example.com/").want(t, exitOK, []string{"public page"}, nil)

	clone := newUntrustedRoot(t)
	writeFile(t, wsOf(t, clone).SettingsPath(), `{"schema_version": 1}`)
	ocfetch(t, cliOptions{egress: eo, interactive: true, stdin: "a\n"}, "--root", clone, "get", "https://example.com/").
		want(t, exitOK, []string{"public page"}, []string{"ocfetch: warning: workspace_untrusted: the rule \"allow example.com:443\" was saved in", "ocfetch trust --root"})
	ocfetch(t, cliOptions{egress: eo}, "--root", clone, "get", "https://example.com/").want(t, exitRefused, nil, []string{"workspace_untrusted"})
}

// reset forgets the requests s has seen.
func (s *site) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}
