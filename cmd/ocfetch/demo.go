package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func newDemoCmd(a *app) *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show, offline, what ocfetch fetches and what it refuses, and why",
		Long: `demo starts a small web site on a free loopback port inside this process,
creates a temporary workspace (profile permissive, that port allowlisted),
fetches a page as Markdown, then shows what is refused, each with its reason
code: a redirect off the approved target, a port that is not allowlisted,
127.0.0.2, [::ffff:127.0.0.1], a full-width spelling of 127.0.0.1, and a
file:// URL. It ends with the audit lines those calls wrote. Nothing leaves
127.0.0.1; it exits 0 when every step behaved as shown, 1 otherwise.`,
		Example: `  ocfetch demo
  go run ./cmd/ocfetch demo
  ocfetch demo --keep    # keep the temporary workspace to look at its files`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), a, keep)
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary workspace and print where it is")
	return cmd
}

// demoSecret is in the path and query of every demo URL that reaches the
// site; the demo checks that no audit line holds it.
const demoSecret = "demo-secret-token"

// demoSite is the demo's web site: a page, and a path that redirects to
// another loopback port. It counts the requests it gets.
type demoSite struct {
	hits      atomic.Int64
	otherHits atomic.Int64
	otherURL  string
}

const demoPage = `<!doctype html>
<html><head><title>Tide tables</title></head>
<body>
<nav><a href="/">Home</a> · <a href="/about">About</a> · <a href="/contact">Contact</a></nav>
<main><article>
<h1>Tide tables</h1>
<p>High water at <strong>06:12</strong> and <strong>18:40</strong>; low water at 00:05 and 12:27.
The harbour gate opens two hours before high water and closes one hour after it, so plan a
departure for the morning tide if you are heading out past the breakwater.</p>
<ul><li>Spring tides this week</li><li>Harbour gate opens two hours before high water</li></ul>
<p>Tidal predictions are computed for the harbour entrance. Strong westerly winds can raise the
level by up to thirty centimetres; a high pressure system lowers it. See the
<a href="/charts">chart archive</a> for the year's tables.</p>
</article></main>
<footer>© the harbour office · <a href="/privacy">Privacy</a></footer>
</body></html>
`

func (s *demoSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	switch r.URL.Path {
	case "/", "/tides":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, demoPage)
	case "/moved":
		http.Redirect(w, r, s.otherURL, http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

// isDemoMarkdown reports whether content is demoPage converted to
// Markdown: emphasis, list items and links in Markdown, no HTML tags.
func isDemoMarkdown(content string) bool {
	for _, want := range []string{"**06:12**", "- Spring tides this week", "[chart archive](http://127.0.0.1:"} {
		if !strings.Contains(content, want) {
			return false
		}
	}
	return !strings.Contains(content, "<p>") && !strings.Contains(content, "<strong>")
}

// demoStep is one call the demo makes and what it must come to: a
// delivered response (want == "") or a refusal with the reason want.
type demoStep struct {
	title string
	url   string
	want  refusal.Code
	why   string
}

// demoRun is the state of one demo: where it writes, and how it went.
type demoRun struct {
	w      io.Writer
	failed int
}

func (d *demoRun) check(ok bool, format string, args ...any) {
	mark := "✓"
	if !ok {
		mark = "✗"
		d.failed++
	}
	fmt.Fprintf(d.w, "%s %s\n", mark, fmt.Sprintf(format, args...))
}

func runDemo(ctx context.Context, a *app, keep bool) error {
	d := &demoRun{w: a.stdout}
	log := a.log()

	// The site and "elsewhere": two loopback listeners of our own.
	site := &demoSite{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return internalErrorf("demo: listen on 127.0.0.1: %v", err)
	}
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return internalErrorf("demo: listen on 127.0.0.1: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	otherPort := other.Addr().(*net.TCPAddr).Port
	site.otherURL = fmt.Sprintf("http://127.0.0.1:%d/?%s", otherPort, demoSecret)
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 5 * time.Second}
	otherSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		site.otherHits.Add(1)
		io.WriteString(w, "you should not see this\n")
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	go otherSrv.Serve(other)
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		otherSrv.Shutdown(sctx)
	}()

	// The workspace: profile permissive, the site's port allowlisted.
	root, err := os.MkdirTemp("", "ocfetch-demo-")
	if err != nil {
		return internalErrorf("demo: temporary workspace: %v", err)
	}
	if !keep {
		defer os.RemoveAll(root)
	}
	ws, err := workspace.Resolve(root)
	if err != nil {
		return internalErrorf("demo: %v", err)
	}
	settings := []byte(`{"schema_version": 1, "risk_profile": "permissive"}` + "\n")
	// The demo's own trust store and user rules, inside its temporary
	// directory: the demo creates the workspace's .oc_chat/, so it trusts
	// it (trust.Store.EnsureWorkspace), as the first `ocfetch local allow`
	// would, without touching the user's trust store. The administrator's
	// managed policy applies as everywhere.
	demoConfig := filepath.Join(root, "demo-config")
	store, err := trust.Open(&trust.Options{Dir: demoConfig})
	if err != nil {
		return internalErrorf("demo: %v", err)
	}
	if _, err := store.EnsureWorkspace(ctx, ws, "ocfetch demo"); err != nil {
		return internalErrorf("demo: %v", err)
	}
	layers := &policy.Layers{Managed: a.layers.managed, Trust: store, User: &rules.Location{Dir: demoConfig, Name: workspace.RulesFile}}
	if err := workspace.WriteFileAtomic(ws.SettingsPath(), settings, 0o644); err != nil {
		return internalErrorf("demo: %v", err)
	}
	if _, err := localfetch.AllowPort(ctx, ws, uint16(port)); err != nil {
		return internalErrorf("demo: %v", err)
	}
	sc, err := scope.Open(ws, scope.Flags{NoSettingsUpstream: true}, layers)
	if err != nil {
		return classify(err)
	}
	profile := sc.Profile

	fmt.Fprintf(a.stdout, "ocfetch demo: everything below stays on 127.0.0.1\n\n")
	fmt.Fprintf(a.stdout, "site       http://127.0.0.1:%d/  (port %d allowlisted)\n", port, port)
	fmt.Fprintf(a.stdout, "elsewhere  http://127.0.0.1:%d/  (port %d not allowlisted)\n", otherPort, otherPort)
	fmt.Fprintf(a.stdout, "workspace  %s  (profile %s)\n", ws.Root, profile)
	for _, path := range []string{ws.SettingsPath(), ws.LocalFetchPath()} {
		b, _ := os.ReadFile(path)
		fmt.Fprintf(a.stdout, "  %-26s %s\n", filepath.Join(workspace.DirName, filepath.Base(path)), strings.TrimSpace(string(b)))
	}
	fmt.Fprintln(a.stdout)

	client := egress.NewClient(&egress.Options{Timeout: 5 * time.Second, Logger: log})
	defer client.CloseIdleConnections()
	// The broker approves each uncovered target once, as `get --yes`
	// would: what is refused below is refused by policy, not for want of
	// an approval.
	b := &broker.Broker{Scope: sc, Approver: broker.ApproveOnce(), Audit: a.auditLog(ws), Logger: log}
	call := func(rawURL string) *tool.Result {
		args, _ := fetch.Args{URL: rawURL, Format: "markdown"}.JSON()
		t := fetch.NewFetch(client, &fetch.Options{Timeout: 5 * time.Second, Logger: log})
		return b.Call(ctx, t, args)
	}

	// 1. The page, as Markdown.
	pageURL := fmt.Sprintf("http://127.0.0.1:%d/tides?%s", port, demoSecret)
	fmt.Fprintf(a.stdout, "1. fetch the page as Markdown: http://127.0.0.1:%d/tides?…\n   ", port)
	res := call(pageURL)
	out, ok := fetch.OutputOf(res.Structured)
	switch {
	case res.IsError:
		d.check(false, "%s: %s (want a delivered page)", res.Reason, res.Message)
	case !ok || out.Status != http.StatusOK || !isDemoMarkdown(out.Content):
		d.check(false, "HTTP %d, %d bytes: the content is not the page as Markdown", out.Status, out.Bytes)
	default:
		d.check(true, "HTTP %d: %d bytes of HTML became %d characters of Markdown:", out.Status, out.Bytes, len([]rune(out.Content)))
		if out.Title != "" {
			fmt.Fprintf(a.stdout, "     │ title: %s\n     │\n", out.Title)
		}
		for _, line := range strings.Split(strings.TrimSpace(out.Content), "\n") {
			for _, l := range wrap(line, 72) {
				fmt.Fprintln(a.stdout, strings.TrimRight("     │ "+l, " "))
			}
		}
	}
	fmt.Fprintln(a.stdout)

	// 2–7. What is refused, each by name.
	fmt.Fprintln(a.stdout, "What is refused, and why (every target below is approved once, as with --yes):")
	steps := []demoStep{
		{"a redirect off the approved target", fmt.Sprintf("http://127.0.0.1:%d/moved", port), refusal.RedirectOffTarget,
			fmt.Sprintf("the site answers 302 to port %d: redirects stay on the approved scheme, host and port", otherPort)},
		{"a loopback port that is not allowlisted", fmt.Sprintf("http://127.0.0.1:%d/", otherPort), refusal.LocalPortNotAllowed,
			"local mode admits only the ports in .oc_chat/local_fetch.json"},
		{"127.0.0.2, another loopback address", fmt.Sprintf("http://127.0.0.2:%d/", port), refusal.AddressNotPublic,
			"only localhost, 127.0.0.1 and ::1 are local-mode hosts; the rest of 127/8 is not public"},
		{"127.0.0.1 as an IPv4-mapped IPv6 address", fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), refusal.AddressNotPublic,
			"the mapped form is unmapped and classified, never taken for a local-mode host"},
		{"127.0.0.1 in full-width digits", fmt.Sprintf("http://１２７．０．０．１:%d/", port), refusal.InvalidHost,
			"a look-alike spelling of an address is refused: the host must be written in ASCII"},
		{"a file:// URL", "file:///etc/passwd", refusal.SchemeNotAllowed,
			"only https (and http in local mode) is fetched"},
	}
	for i, s := range steps {
		fmt.Fprintf(a.stdout, "%d. %s: %s\n   ", i+2, s.title, s.url)
		res := call(s.url)
		switch {
		case !res.IsError:
			d.check(false, "delivered HTTP %d; want refused with %s", res.Status, s.want)
		case res.Reason != s.want:
			d.check(false, "%s: %s (want %s)", res.Reason, res.Message, s.want)
		default:
			d.check(true, "%s: %s", res.Reason, res.Message)
		}
		fmt.Fprintf(a.stdout, "     (%s)\n", s.why)
	}
	fmt.Fprintln(a.stdout)

	// Nothing reached the other port, and no address but 127.0.0.1 was
	// dialed: the site saw the page and the redirecting path, nothing else.
	hits, otherHits := site.hits.Load(), site.otherHits.Load()
	d.check(hits == 2 && otherHits == 0, "the site got %d requests (the page and /moved), the other port %d", hits, otherHits)

	entries, err := audit.Read(ws, 0)
	if err != nil {
		return classify(err)
	}
	raw, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		return internalErrorf("demo: %v", err)
	}
	d.check(len(entries) == 1+len(steps), "the audit log has %d lines, one per call (want %d)", len(entries), 1+len(steps))
	d.check(!bytes.Contains(raw, []byte(demoSecret)) && !bytes.Contains(raw, []byte("/tides")),
		"no audit line holds a path or query (the page URL carried ?%s)", demoSecret)
	fmt.Fprintf(a.stdout, "\nThe audit lines (%s):\n", filepath.Join(workspace.DirName, workspace.AuditFile))
	printAuditTable(a, entries)

	if keep {
		fmt.Fprintf(a.stdout, "\nworkspace kept: %s\n", ws.Root)
	}
	fmt.Fprintln(a.stdout)
	if d.failed > 0 {
		return &exitError{code: exitInternal, msg: fmt.Sprintf("demo: %d step(s) did not behave as shown", d.failed)}
	}
	fmt.Fprintln(a.stdout, "every step behaved as shown.")
	return nil
}

// wrap breaks line at spaces into lines of at most width runes (a longer
// word stays whole), for showing content in the demo's box.
func wrap(line string, width int) []string {
	var out []string
	for len([]rune(line)) > width {
		r := []rune(line)
		cut := strings.LastIndex(string(r[:width+1]), " ")
		if cut <= 0 {
			break
		}
		out = append(out, line[:cut])
		line = strings.TrimLeft(line[cut:], " ")
	}
	return append(out, line)
}
