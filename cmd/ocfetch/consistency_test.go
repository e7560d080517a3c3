package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/explain"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/trust"
)

// consistencyWorld is one situation of TestExplainConsistency: a
// workspace root, its own user configuration directory and managed
// policy path, and the global flags every command runs with.
type consistencyWorld struct {
	root   string
	layers layerFiles
	flags  []string
}

// newConsistencyWorld is a fresh workspace (trusted or not) with layers
// of its own: no two situations share a managed policy or user rules.
func newConsistencyWorld(t *testing.T, trusted bool) *consistencyWorld {
	t.Helper()
	dir := t.TempDir()
	l := layerFiles{
		configDir: filepath.Join(dir, "config", "ocfetch"),
		managed:   &managed.Options{Path: filepath.Join(dir, "etc", "ocfetch", "policy.json"), Administrator: testAdmin},
	}
	root := newUntrustedRoot(t)
	if trusted {
		s, err := trust.Open(&trust.Options{Dir: l.configDir})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Trust(context.Background(), root, trust.Details{How: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	ws := wsOf(t, root)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	return &consistencyWorld{root: root, layers: l}
}

func (w *consistencyWorld) file(t *testing.T, rel, body string) {
	t.Helper()
	writeFile(t, filepath.Join(w.root, ".oc_chat", rel), body)
}

func (w *consistencyWorld) managedPolicy(t *testing.T, body string) {
	t.Helper()
	writeManaged(t, w.layers, body)
}

func (w *consistencyWorld) userRules(t *testing.T, body string) {
	t.Helper()
	writeFile(t, filepath.Join(w.layers.configDir, "rules.json"), body)
}

// cRule is one rule of a rules.json.
func cRule(host string, port int, decision string) string {
	return fmt.Sprintf(`{"capability": "network", "target": {"schema": "network.target.v1", "host": %q, "port": %d}, "decision": %q}`, host, port, decision)
}

func rulesFile(rs ...string) string {
	return `{"schema_version": 1, "rules": [` + strings.Join(rs, ", ") + `]}`
}

func (w *consistencyWorld) run(t *testing.T, o cliOptions, args ...string) result {
	t.Helper()
	o.layers = &w.layers
	return ocfetch(t, o, append(append(append([]string(nil), w.flags...), "--root", w.root), args...)...)
}

// proxyVerdict is what the proxy answered one request: the status, the
// X-Ocfetch-Reason, and whether its transport was reached.
type proxyVerdict struct {
	status  int
	reason  refusal.Code
	body    string
	reached bool
}

// consistencyProxy is `ocfetch proxy` (--auth none) serving a world
// in-process, its transport a recording dialer that refuses every dial.
type consistencyProxy struct {
	addr string
	rec  *recorder
	stop func()
	// startCode and startErr are the exit code and stderr of a proxy that
	// did not start (startCode 0: it runs).
	startCode int
	startErr  string
}

func startConsistencyProxy(t *testing.T, w *consistencyWorld) *consistencyProxy {
	t.Helper()
	rec := &recorder{}
	var stdout, stderr testio.SyncBuffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.layers = w.layers
	a.interactive = func() bool { return false }
	a.controllingTerminal = func() (*os.File, bool) { return nil, false }
	a.getenv = func(string) string { return "" }
	a.egressOptions = func(o *egress.Options) {
		o.Resolver, o.Dial = rec, rec.dial
		if o.Upstream != nil {
			o.Upstream.Dial = rec.dial
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, a, append(append(append([]string(nil), w.flags...), "--root", w.root), "proxy", "--listen", "127.0.0.1:0", "--auth", "none"))
	}()
	listening := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	p := &consistencyProxy{rec: rec}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			p.addr = m[1]
			break
		}
		select {
		case code := <-done:
			cancel()
			p.startCode, p.startErr = code, stderr.String()
			return p
		default:
		}
	}
	if p.addr == "" {
		cancel()
		t.Fatalf("the proxy did not say where it listens; stderr:\n%s", stderr.String())
	}
	p.stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not stop")
		}
	}
	t.Cleanup(p.stop)
	return p
}

// ask sends the request a client would send through the proxy for
// rawURL: CONNECT host:port for https, an absolute-form GET otherwise.
// ok is false when no client would send rawURL through a proxy.
func (p *consistencyProxy) ask(t *testing.T, rawURL string) (v proxyVerdict, ok bool) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return v, false
	}
	// An empty port ("localhost:") is no port: clients (curl, browsers)
	// drop the colon before they ask a proxy.
	u.Host = strings.TrimSuffix(u.Host, ":")
	var head string
	if strings.EqualFold(u.Scheme, "https") {
		if u.User != nil {
			return v, false // a client sends no credentials in a CONNECT
		}
		hp := u.Host
		if u.Port() == "" {
			hp += ":443"
		}
		head = "CONNECT " + hp + " HTTP/1.1\r\nHost: " + hp + "\r\n\r\n"
	} else {
		head = "GET " + u.String() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nConnection: close\r\n\r\n"
	}
	p.rec.mu.Lock()
	p.rec.resolved, p.rec.dialed = nil, nil
	p.rec.mu.Unlock()
	c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: strings.Fields(head)[0]})
	if err != nil {
		t.Fatalf("proxy %q: %v", rawURL, err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	v.body = string(b)
	p.rec.mu.Lock()
	v.reached = len(p.rec.resolved)+len(p.rec.dialed) > 0
	p.rec.mu.Unlock()
	v.status, v.reason = resp.StatusCode, refusal.Code(resp.Header.Get("X-Ocfetch-Reason"))
	return v, true
}

// explainJSON runs explain --json (with --proxy when proxy) in w.
func explainJSON(t *testing.T, w *consistencyWorld, rawURL string, proxy bool) (explain.Explanation, result) {
	t.Helper()
	args := []string{"explain", "--json", rawURL}
	if proxy {
		args = append(args, "--proxy")
	}
	r := w.run(t, cliOptions{}, args...)
	var e explain.Explanation
	if r.code == exitOK {
		decodeStrict(t, r.stdout, &e)
	}
	return e, r
}

// reasonOf is the reason code a failed command wrote on stderr
// ("ocfetch: CODE: message").
var reasonOf = regexp.MustCompile(`ocfetch: ([a-z_]+): `)

func stderrReason(s string) refusal.Code {
	if m := reasonOf.FindStringSubmatch(s); m != nil {
		return refusal.Code(m[1])
	}
	return ""
}

// auditTail returns the audit lines the workspace's log gained after n
// lines, and the new count.
func auditTail(t *testing.T, w *consistencyWorld, n int) ([]audit.Entry, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, ".oc_chat", "audit.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	// Only whole lines: the proxy writes its line as the exchange ends.
	if i := strings.LastIndexByte(string(b), '\n'); i >= 0 {
		b = b[:i]
	} else {
		b = nil
	}
	lines := strings.Split(string(b), "\n")
	if len(b) == 0 {
		lines = nil
	}
	var out []audit.Entry
	for _, l := range lines[min(n, len(lines)):] {
		var e audit.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out, len(lines)
}

// sameAudit: the audit line of a decided call names explain's rule and
// what decided (explain's decided_by; an ask that nobody could answer is
// the front's own).
func sameAudit(t *testing.T, front, rawURL string, e explain.Explanation, lines []audit.Entry) {
	t.Helper()
	if e.Decision != "allow" && e.Decision != "deny" {
		return
	}
	if len(lines) != 1 {
		t.Errorf("%s %s: %d audit lines; want 1", front, rawURL, len(lines))
		return
	}
	if l := lines[0]; l.Rule != e.Rule || string(l.DecidedBy) != e.DecidedBy {
		t.Errorf("%s %s: explain says %s by %s rule %q; the audit line says by %s rule %q", front, rawURL, e.Decision, e.DecidedBy, e.Rule, l.DecidedBy, l.Rule)
	}
}

// checkGet: explain's verdict for rawURL is what a non-interactive get
// does (an ask is refused not_approved; nothing is dialed).
func checkGet(t *testing.T, w *consistencyWorld, rawURL string) {
	t.Helper()
	e, ex := explainJSON(t, w, rawURL, false)
	rec := &recorder{}
	_, n := auditTail(t, w, 0)
	g := w.run(t, cliOptions{egress: func(o *egress.Options) {
		o.Resolver, o.Dial = rec, rec.dial
		if o.Upstream != nil {
			o.Upstream.Dial = rec.dial
		}
	}}, "get", "--json", rawURL)
	if ex.code != exitOK {
		// explain could not decide (a file it must read is broken): get
		// fails alike, with the same reason.
		want := stderrReason(ex.stderr)
		var ge struct {
			Error errorField `json:"error"`
		}
		json.Unmarshal([]byte(g.stdout), &ge)
		got := ge.Error.Reason
		if got == "" {
			got = stderrReason(g.stderr)
		}
		if want == "" || got != want {
			t.Errorf("explain %s: exit %d %q; get: exit %d reason %q %s%s", rawURL, ex.code, want, g.code, got, g.stdout, g.stderr)
		}
		return
	}
	var ge struct {
		OK    bool       `json:"ok"`
		Error errorField `json:"error"`
	}
	if err := json.Unmarshal([]byte(g.stdout), &ge); err != nil {
		t.Fatalf("get --json %q: exit %d: %v\n%s%s", rawURL, g.code, err, g.stdout, g.stderr)
	}
	reached := len(rec.resolved)+len(rec.dialed) > 0
	lines, _ := auditTail(t, w, n)
	sameAudit(t, "get", rawURL, e, lines)
	switch e.Decision {
	case "allow":
		if !reached {
			t.Errorf("%s: explain says allow (%s %s); get refused %s: %s", rawURL, e.Layer, e.Rule, ge.Error.Reason, ge.Error.Message)
		}
	case "ask":
		if reached || ge.Error.Reason != refusal.NotApproved {
			t.Errorf("%s: explain says ask; get %s (reached %v): %s", rawURL, ge.Error.Reason, reached, ge.Error.Message)
		}
	default:
		if reached || ge.Error.Reason != e.Reason || ge.Error.Message != safetext.Line(e.Message) {
			t.Errorf("%s: explain says %s %s (%s); get %s (reached %v): %s", rawURL, e.Decision, e.Reason, e.Message, ge.Error.Reason, reached, ge.Error.Message)
		}
	}
}

// checkProxy: explain --proxy's verdict for rawURL is what the proxy does
// for the request a client sends for it.
func checkProxy(t *testing.T, w *consistencyWorld, p *consistencyProxy, rawURL string) {
	t.Helper()
	e, ex := explainJSON(t, w, rawURL, true)
	if p.startCode != 0 {
		want := stderrReason(ex.stderr)
		if ex.code == exitOK || want == "" || stderrReason(p.startErr) != want {
			t.Errorf("the proxy did not start (exit %d: %s); explain --proxy %s: exit %d %s", p.startCode, p.startErr, rawURL, ex.code, ex.stdout+ex.stderr)
		}
		return
	}
	if ex.code != exitOK {
		t.Errorf("explain --proxy %s: exit %d %s; the proxy runs", rawURL, ex.code, ex.stderr)
		return
	}
	_, n := auditTail(t, w, 0)
	v, ok := p.ask(t, rawURL)
	if !ok {
		return
	}
	// Every exchange writes its one line, as it ends (after the answer).
	lines, _ := auditTail(t, w, n)
	for deadline := time.Now().Add(3 * time.Second); len(lines) == 0 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		lines, _ = auditTail(t, w, n)
	}
	sameAudit(t, "proxy", rawURL, e, lines)
	switch e.Decision {
	case "allow":
		if !v.reached {
			t.Errorf("%s: explain --proxy says allow (%s %s); the proxy answered %d %s", rawURL, e.Layer, e.Rule, v.status, v.reason)
		}
	case "ask":
		if v.reached || v.reason != refusal.NotApproved {
			t.Errorf("%s: explain --proxy says ask; the proxy answered %d %s (reached %v)", rawURL, v.status, v.reason, v.reached)
		}
	default:
		if v.reached || v.reason != e.Reason || (e.Decision == "deny" && !strings.Contains(v.body, safetext.Line(e.Message))) {
			t.Errorf("%s: explain --proxy says %s %s (%s); the proxy answered %d %s (reached %v): %s", rawURL, e.Decision, e.Reason, e.Message, v.status, v.reason, v.reached, v.body)
		}
	}
}

// consistencyURLs are asked in every situation.
var consistencyURLs = []string{
	"https://allowed.example/", "https://ALLOWED.example./x?q", "https://denied.example/",
	"https://userdeny.example/", "https://useronly.example/", "https://managed-deny.example/",
	"https://new.example/", "http://new.example/", "http://plain.example/", "https://plain.example/",
	"ftp://new.example/", "https://user:pw@allowed.example/",
	"https://93.184.216.34/", "https://10.0.0.1/", "https://192.168.1.1/", "https://169.254.169.254/latest/meta-data/",
	"http://169.254.169.254/", "https://[::ffff:169.254.169.254]/", "https://[::ffff:10.0.0.1]/", "https://[::ffff:93.184.216.34]/",
	"https://[fe80::1]/", "https://127.0.0.2/", "https://0.0.0.0/", "https://[::ffff:127.0.0.1]/",
	"http://localhost:3000/", "http://127.0.0.1:3000/", "http://[::1]:3000/", "http://LOCALHOST:3000/",
	"http://localhost.:3000/", "http://localhost:8080/", "http://localhost/", "https://localhost/", "https://localhost:3000/",
	"http://１２７.０.０.１:3000/", "http://localho\u017ft:3000/", "https://xn--nxasmq6b.example/", "https://allowed.example:8443/",
	"http://2130706433:3000/", "http://0x7f.0.0.1:3000/", "http://127.1:3000/",
	"https://Allowed.Example/", "https://allowed.example:443/", "https://allowed。example/", "HTTPS://allowed.example/",
	"http://[0:0:0:0:0:0:0:1]:3000/", "http://127.000.000.001:3000/", "http://[::1%25eth0]:3000/", "http://localhost:/",
	"https://[::ffff:7f00:1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2001:db8::1]/", "https://100.64.0.1/",
	"ws://new.example/", "file:///etc/passwd", "https://managed-allow.example/", "http://managed-allow.example/",
}

// TestExplainConsistency: in every situation (profiles from the flag and
// from settings.json, trusted or not, workspace, user and managed rules,
// local mode, the open-web rule, malformed files), explain's verdict and
// reason for each URL are get's (non-interactive: ask is not_approved),
// and explain --proxy's are the proxy's for the request a client sends.
func TestExplainConsistency(t *testing.T) {
	wsRules := rulesFile(cRule("allowed.example", 443, "allow"), cRule("denied.example", 443, "deny"),
		cRule("plain.example", 80, "allow"), cRule("localhost", 3000, "allow"), cRule("127.0.0.1", 3000, "allow"),
		cRule("::1", 3000, "allow"), cRule("93.184.216.34", 443, "allow"), cRule("localhost", 80, "allow"))
	userRules := rulesFile(cRule("userdeny.example", 443, "deny"), cRule("useronly.example", 443, "allow"),
		cRule("allowed.example", 443, "allow"))
	local := `{"schema_version": 1, "ports": [3000]}`
	settings := func(p string) string { return `{"schema_version": 1, "risk_profile": "` + p + `"}` }
	for _, tc := range []struct {
		name    string
		trusted bool
		flags   []string
		setup   func(t *testing.T, w *consistencyWorld)
	}{
		{name: "empty-standard", trusted: true},
		{name: "strict-flag", trusted: true, flags: []string{"--profile", "strict"}},
		{name: "permissive-flag-no-files", trusted: true, flags: []string{"--profile", "permissive"}},
		{name: "full-permissive-settings", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("permissive"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.userRules(t, userRules)
		}},
		{name: "full-standard-settings", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("standard"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.userRules(t, userRules)
		}},
		{name: "full-strict-settings", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("strict"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.userRules(t, userRules)
		}},
		{name: "full-permissive-flag-strict-settings", trusted: true, flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("strict"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
		}},
		{name: "untrusted-full-permissive-settings", setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("permissive"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.userRules(t, userRules)
		}},
		{name: "untrusted-permissive-flag", flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
		}},
		{name: "untrusted-strict-settings", setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("strict"))
			w.file(t, "rules.json", wsRules)
		}},
		{name: "trusted-upstream-settings", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", `{"schema_version": 1, "upstream_proxy": "http://127.0.0.1:9"}`)
			w.file(t, "rules.json", wsRules)
		}},
		{name: "untrusted-upstream-settings", setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", `{"schema_version": 1, "upstream_proxy": "http://127.0.0.1:9"}`)
		}},
		{name: "local-without-port", trusted: true, flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "local_fetch.json", `{"schema_version": 1, "ports": []}`)
			w.file(t, "rules.json", wsRules)
		}},
		{name: "local-missing", trusted: true, flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", wsRules)
		}},
		{name: "managed-deny-max-standard", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("permissive"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.managedPolicy(t, `{"schema_version": 1, "max_profile": "standard", "rules": [`+cRule("managed-deny.example", 443, "deny")+`, `+cRule("allowed.example", 443, "deny")+`]}`)
		}},
		{name: "managed-max-strict", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", wsRules)
			w.managedPolicy(t, `{"schema_version": 1, "max_profile": "strict"}`)
		}},
		{name: "managed-rules-only-no-allow-once", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", wsRules)
			w.managedPolicy(t, `{"schema_version": 1, "managed_rules_only": true, "allow_once": false, "allow_trust_flag": false, "rules": [`+cRule("useronly.example", 443, "allow")+`]}`)
		}},
		{name: "managed-allow-untrusted-permissive", setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", settings("permissive"))
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			w.managedPolicy(t, `{"schema_version": 1, "rules": [`+cRule("managed-allow.example", 443, "allow")+`, `+cRule("managed-allow.example", 80, "allow")+`, `+cRule("localhost", 3000, "allow")+`]}`)
		}},
		{name: "managed-no-allow-once", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.managedPolicy(t, `{"schema_version": 1, "allow_once": false}`)
		}},
		{name: "open-web-workspace", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", rulesFile(cRule("*", 443, "allow"), cRule("denied.example", 443, "deny")))
		}},
		{name: "open-web-user-untrusted", setup: func(t *testing.T, w *consistencyWorld) {
			w.userRules(t, rulesFile(cRule("*", 443, "allow"), cRule("denied.example", 443, "deny")))
		}},
		{name: "open-web-managed-forbids", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", rulesFile(cRule("*", 443, "allow")))
			w.managedPolicy(t, `{"schema_version": 1, "allow_public_https": false}`)
		}},
		{name: "malformed-rules", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "rules.json", `{"schema_version": 1, "rules": [`)
		}},
		{name: "malformed-user-rules", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.userRules(t, `{"schema_version": 1, "rules": 7}`)
		}},
		{name: "malformed-settings", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "settings.json", `{"schema_version": 1, "risk_profile": "reckless"}`)
		}},
		{name: "malformed-local", trusted: true, flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "local_fetch.json", `{"schema_version": 1, "ports": [3000,`)
			w.file(t, "rules.json", wsRules)
		}},
		{name: "malformed-managed", trusted: true, setup: func(t *testing.T, w *consistencyWorld) {
			w.managedPolicy(t, `{"schema_version": 1, "max_profile": "wide"}`)
		}},
		{name: "malformed-trust-store", flags: []string{"--profile", "permissive"}, setup: func(t *testing.T, w *consistencyWorld) {
			w.file(t, "local_fetch.json", local)
			w.file(t, "rules.json", wsRules)
			writeFile(t, filepath.Join(w.layers.configDir, "trust.json"), `{"schema_version": 1, "workspaces": [`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newConsistencyWorld(t, tc.trusted)
			w.flags = tc.flags
			if tc.setup != nil {
				tc.setup(t, w)
			}
			p := startConsistencyProxy(t, w)
			for _, u := range consistencyURLs {
				checkGet(t, w, u)
				checkProxy(t, w, p, u)
			}
		})
	}
}
