package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// Options configure one [Run].
type Options struct {
	// Out receives the demo's report, step by step; it must not be nil.
	Out io.Writer
	// Logger receives the diagnostics of the calls; if nil, they are
	// dropped.
	Logger *slog.Logger
	// Managed replaces the managed policy's path and administrator check;
	// nil is the platform's. The administrator's policy applies to the
	// demo as everywhere.
	Managed *managed.Options
	// Audit opens the audit log of the demo's workspace; nil is
	// audit.Open (the CLI adds its audit exporter).
	Audit func(workspace.Workspace) *audit.Log
	// AuditTable shows the audit lines the demo's calls wrote, on Out,
	// after the demo's own checks of them; nil leaves the table out.
	AuditTable func([]audit.Entry)
	// Keep keeps the temporary workspace, and Run says where it is.
	Keep bool
}

// ErrMisbehaved is wrapped by the *Error of a demo in which a step did not
// behave as shown (each such step is marked ✗ in the report).
var ErrMisbehaved = errors.New("did not behave as shown")

// Error is a failure of the demo itself: it could not set up its site or
// its workspace (Op says which part, "" for the workspace's files), or a
// step misbehaved (Err wraps ErrMisbehaved). Its text starts "demo: ".
type Error struct {
	Op  string
	Err error
}

func (e *Error) Error() string {
	if e.Op == "" {
		return "demo: " + e.Err.Error()
	}
	return "demo: " + e.Op + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

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

// Run runs the demo, writing its report to o.Out, and returns nil when
// every step behaved as shown. An *Error is the demo's own failure (it
// could not set up its site or workspace, or a step misbehaved); any other
// error is one of the packages it calls (scope.Open, audit.Read), as they
// returned it.
func Run(ctx context.Context, o *Options) error {
	d := &demoRun{w: o.Out}
	log := o.Logger
	openAudit := o.Audit
	if openAudit == nil {
		openAudit = audit.Open
	}

	// The site and "elsewhere": two loopback listeners of our own.
	site := &demoSite{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return &Error{Op: "listen on 127.0.0.1", Err: err}
	}
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return &Error{Op: "listen on 127.0.0.1", Err: err}
	}
	port := ln.Addr().(*net.TCPAddr).Port
	otherPort := other.Addr().(*net.TCPAddr).Port
	site.otherURL = fmt.Sprintf("http://127.0.0.1:%d/?%s", otherPort, Secret)
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
		return &Error{Op: "temporary workspace", Err: err}
	}
	if !o.Keep {
		defer os.RemoveAll(root)
	}
	ws, err := workspace.Resolve(root)
	if err != nil {
		return &Error{Err: err}
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
		return &Error{Err: err}
	}
	if _, err := store.EnsureWorkspace(ctx, ws, "ocfetch demo"); err != nil {
		return &Error{Err: err}
	}
	layers := &policy.Layers{Managed: o.Managed, Trust: store, User: &rules.Location{Dir: demoConfig, Name: workspace.RulesFile}}
	if err := workspace.WriteFileAtomic(ws.SettingsPath(), settings, 0o644); err != nil {
		return &Error{Err: err}
	}
	if _, err := localfetch.AllowPort(ctx, ws, uint16(port)); err != nil {
		return &Error{Err: err}
	}
	sc, err := scope.Open(ws, scope.Flags{NoSettingsUpstream: true}, layers)
	if err != nil {
		return err
	}
	profile := sc.Profile

	fmt.Fprintf(o.Out, "ocfetch demo: everything below stays on 127.0.0.1\n\n")
	fmt.Fprintf(o.Out, "site       http://127.0.0.1:%d/  (port %d allowlisted)\n", port, port)
	fmt.Fprintf(o.Out, "elsewhere  http://127.0.0.1:%d/  (port %d not allowlisted)\n", otherPort, otherPort)
	fmt.Fprintf(o.Out, "workspace  %s  (profile %s)\n", ws.Root, profile)
	for _, path := range []string{ws.SettingsPath(), ws.LocalFetchPath()} {
		b, _ := os.ReadFile(path)
		fmt.Fprintf(o.Out, "  %-26s %s\n", filepath.Join(workspace.DirName, filepath.Base(path)), strings.TrimSpace(string(b)))
	}
	fmt.Fprintln(o.Out)

	client := egress.NewClient(&egress.Options{Timeout: 5 * time.Second, Logger: log})
	defer client.CloseIdleConnections()
	// The broker approves each uncovered target once, as `get --yes`
	// would: what is refused below is refused by policy, not for want of
	// an approval.
	b := &broker.Broker{Scope: sc, Approver: broker.ApproveOnce(), Audit: openAudit(ws), Logger: log}
	call := func(rawURL string) *tool.Result {
		args, _ := fetchargs.Document{URL: rawURL, Format: "markdown"}.JSON()
		t := fetch.NewFetch(client, &fetch.Options{Timeout: 5 * time.Second, Logger: log})
		return b.Call(ctx, t, args)
	}

	// 1. The page, as Markdown.
	pageURL := fmt.Sprintf("http://127.0.0.1:%d/tides?%s", port, Secret)
	fmt.Fprintf(o.Out, "1. fetch the page as Markdown: http://127.0.0.1:%d/tides?…\n   ", port)
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
			fmt.Fprintf(o.Out, "     │ title: %s\n     │\n", out.Title)
		}
		for _, line := range strings.Split(strings.TrimSpace(out.Content), "\n") {
			for _, l := range wrap(line, 72) {
				fmt.Fprintln(o.Out, strings.TrimRight("     │ "+l, " "))
			}
		}
	}
	fmt.Fprintln(o.Out)

	// 2–7. What is refused, each by name.
	fmt.Fprintln(o.Out, "What is refused, and why (every target below is approved once, as with --yes):")
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
		fmt.Fprintf(o.Out, "%d. %s: %s\n   ", i+2, s.title, s.url)
		res := call(s.url)
		switch {
		case !res.IsError:
			d.check(false, "delivered HTTP %d; want refused with %s", res.Status, s.want)
		case res.Reason != s.want:
			d.check(false, "%s: %s (want %s)", res.Reason, res.Message, s.want)
		default:
			d.check(true, "%s: %s", res.Reason, res.Message)
		}
		fmt.Fprintf(o.Out, "     (%s)\n", s.why)
	}
	fmt.Fprintln(o.Out)

	// Nothing reached the other port, and no address but 127.0.0.1 was
	// dialed: the site saw the page and the redirecting path, nothing else.
	hits, otherHits := site.hits.Load(), site.otherHits.Load()
	d.check(hits == 2 && otherHits == 0, "the site got %d requests (the page and /moved), the other port %d", hits, otherHits)

	entries, err := audit.Read(ws, 0)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		return &Error{Err: err}
	}
	d.check(len(entries) == 1+len(steps), "the audit log has %d lines, one per call (want %d)", len(entries), 1+len(steps))
	d.check(!bytes.Contains(raw, []byte(Secret)) && !bytes.Contains(raw, []byte("/tides")),
		"no audit line holds a path or query (the page URL carried ?%s)", Secret)
	fmt.Fprintf(o.Out, "\nThe audit lines (%s):\n", filepath.Join(workspace.DirName, workspace.AuditFile))
	if o.AuditTable != nil {
		o.AuditTable(entries)
	}

	if o.Keep {
		fmt.Fprintf(o.Out, "\nworkspace kept: %s\n", ws.Root)
	}
	fmt.Fprintln(o.Out)
	if d.failed > 0 {
		return &Error{Err: fmt.Errorf("%d step(s) %w", d.failed, ErrMisbehaved)}
	}
	fmt.Fprintln(o.Out, "every step behaved as shown.")
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
