package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/net/http/httpguts"

	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/download"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/internal/batchwrite"
	"github.com/ocfetch/ocfetch/internal/ctxio"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/tool"
)

// getFlags are the flags of `ocfetch get`, as parsed.
type getFlags struct {
	method     string
	data       string
	headers    []string
	format     string
	maxLength  int
	startIndex int
	maxBytes   int64
	timeout    time.Duration
	yes        bool
	json       bool
	output     string
	egress     egressFlags
	// respectRobots: --respect-robots (fetch.Options.Robots).
	respectRobots bool
}

func newGetCmd(a *app) *cobra.Command {
	var f getFlags
	cmd := &cobra.Command{
		Use:   "get URL",
		Short: "Fetch one URL, within the workspace's rules, and print its content",
		Long: `get performs one bounded GET or POST and prints the status line, a short
header summary and the content (Markdown by default).

A public host must be https and covered by a saved rule (ocfetch rules allow
HOST), or approved: on a terminal you are asked (once / always / deny);
elsewhere the call is refused with not_approved unless --yes approves this one
call. --yes never overrides a deny rule, the egress guard or local mode.

http://localhost, 127.0.0.1 or [::1] work only in local mode: profile
permissive, an explicit port, and that port in .oc_chat/local_fetch.json
(ocfetch local allow PORT).

Exit codes: 0 a response was delivered (any HTTP status), 2 usage error,
3 refused by policy, 4 the request failed (network, TLS, timeout, size, a
file -o could not write), 130 interrupted (Ctrl-C; under --json after the
object, reason cancelled).`,
		Example: `  ocfetch get https://example.com/
  ocfetch get --yes --format text https://example.com/
  ocfetch get --json https://example.com/ | jq -r .content
  ocfetch get --max-length 2000 --start-index 2000 https://example.com/
  ocfetch get -X POST -H 'Content-Type: application/json' -d '{"q":1}' https://api.example.com/search
  ocfetch get -d @query.json https://api.example.com/search
  ocfetch get -o report.pdf https://example.com/report.pdf
  ocfetch get --respect-robots https://example.com/docs/   # refused if robots.txt disallows it
  ocfetch get --upstream-proxy http://proxy.corp:3128 --upstream-proxy-exclude '*.corp.example' https://wiki.corp.example/
  ocfetch get --profile permissive http://127.0.0.1:3000/   # after: ocfetch local allow 3000`,
		// A missing or extra URL is found here, not by cobra's Args, so
		// that --json reports it as the JSON error object too.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return a.getFailed(f, exactArgs("URL")(cmd, args))
			}
			rawURL := ""
			if len(args) == 1 {
				rawURL = args[0]
			}
			return runGet(cmd.Context(), a, cmd, rawURL, f)
		},
		// --json reports usage errors found before RunE as its object too.
		Annotations: map[string]string{jsonErrorsAnnotation: "true"},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.method, "request", "X", "", "HTTP `METHOD`, GET or POST (default GET; POST when -d is given)")
	fl.StringVarP(&f.data, "data", "d", "", "request `BODY` for POST, at most 64 KiB; @FILE reads it from FILE, @- from stdin")
	fl.StringArrayVarP(&f.headers, "header", "H", nil, "request header `'Name: value'` (repeatable)")
	fl.StringVar(&f.format, "format", "markdown", "content `FORMAT`: markdown, text or raw")
	fl.IntVar(&f.maxLength, "max-length", fetchargs.DefaultMaxLength, "return at most `N` characters of content (1 to 1000000)")
	fl.IntVar(&f.startIndex, "start-index", 0, "start the content at character `N`, to read on after a truncated result")
	fl.Int64Var(&f.maxBytes, "max-bytes", fetch.DefaultMaxBodyBytes, "read at most `N` bytes of the response body (after decompression)")
	fl.DurationVar(&f.timeout, "timeout", fetch.DefaultTimeout, "deadline (`DUR`, like 10s or 2m) for the whole call, redirects and body included")
	fl.BoolVarP(&f.yes, "yes", "y", false, "approve this call's target once (never over a deny rule, the guard or local mode)")
	fl.BoolVar(&f.json, "json", false, `print one JSON object: {"ok": true, "status", "url", "headers", "content", "format", "truncated", "next_start_index", "bytes", "body_truncated"} or {"ok": false, "error": {"reason", "message", "hint", "redirect_to"}}; "title" when the page has one, "redirect_to" (the full Location) when an off-target redirect was refused`)
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"markdown", "text", "raw"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("request", cobra.FixedCompletions([]string{"GET", "POST"}, cobra.ShellCompDirectiveNoFileComp))
	fl.BoolVar(&f.respectRobots, "respect-robots", false, "refuse the page if the site's robots.txt disallows it for user agent ocfetch (robots_disallowed; a 401 or 403 for robots.txt refuses too); robots.txt is read under the same decision as the page")
	fl.StringVarP(&f.output, "output", "o", "", "write the response body, as received, to `FILE` (a progress bar on a terminal above 1 MiB)")
	addEgressFlags(cmd, &f.egress)
	return cmd
}

// getJSON is the `get --json` object on success: "ok": true, then the
// one output shape (fetch.Output: the keys of the CLI contract in their
// order, then the fields it added).
type getJSON struct {
	OK bool `json:"ok"`
	fetch.Output
}

// errorJSON is the `--json` object of a refusal or failure.
type errorJSON struct {
	OK    bool       `json:"ok"`
	Error errorField `json:"error"`
}

type errorField struct {
	Reason  refusal.Code `json:"reason"`
	Message string       `json:"message"`
	Hint    string       `json:"hint,omitempty"`
	// RedirectTo is the full Location of a refused off-target redirect
	// (redirect_off_target), resolved against the request URL: fetch it in
	// a new call, which is decided on its own.
	RedirectTo string `json:"redirect_to,omitempty"`
}

// buildFetchArgs validates the flags of get and returns the tool's
// arguments document. Every problem is a usage error (exit 2) that names the
// flag, never a header value or the body.
func buildFetchArgs(a *app, cmd *cobra.Command, rawURL string, f getFlags) (string, error) {
	hint := helpHint(cmd)
	if strings.TrimSpace(rawURL) == "" {
		return "", usageErrorf(hint, "missing URL")
	}
	// The tool's arguments are JSON strings: invalid UTF-8 would reach it
	// silently changed (json.Marshal writes U+FFFD), so it is refused here.
	if !utf8.ValidString(rawURL) {
		return "", usageErrorf(hint, "the URL is not valid UTF-8")
	}
	args := fetchargs.Document{URL: rawURL}

	method := strings.ToUpper(f.method)
	dataSet := cmd.Flags().Changed("data")
	switch {
	case method == "" && dataSet:
		method = http.MethodPost
	case method == "":
		method = http.MethodGet
	case method != http.MethodGet && method != http.MethodPost:
		return "", usageErrorf(hint, "-X must be GET or POST")
	}
	if dataSet && method != http.MethodPost {
		return "", usageErrorf(hint, "-d sends a body, which needs POST; drop -X GET")
	}
	args.Method = method
	if dataSet {
		body, err := readData(a, f.data)
		if err != nil {
			return "", err
		}
		if !utf8.ValidString(body) {
			return "", usageErrorf("the fetch tool sends text bodies; convert binary data first", "-d: the body is not valid UTF-8")
		}
		args.Body = &body
	}

	if len(f.headers) > 0 {
		args.Headers = make(map[string]string, len(f.headers))
		canon := make(map[string]bool, len(f.headers))
		for i, h := range f.headers {
			name, value, err := parseHeader(h)
			if err != nil {
				return "", usageErrorf("write -H 'Name: value'", "header %d (-H): %v", i+1, err)
			}
			k := http.CanonicalHeaderKey(name)
			if canon[k] {
				return "", usageErrorf("give each header once", "header %d (-H): %s is given more than once", i+1, k)
			}
			canon[k] = true
			args.Headers[name] = value
		}
	}

	format, err := content.ParseFormat(f.format)
	if err != nil {
		return "", usageErrorf(hint, "--format must be markdown, text or raw")
	}
	args.Format = string(format)

	if f.maxLength < 1 || f.maxLength > fetchargs.MaxMaxLength {
		return "", usageErrorf(hint, "--max-length must be from 1 to %d; got %d", fetchargs.MaxMaxLength, f.maxLength)
	}
	if cmd.Flags().Changed("max-length") {
		args.MaxLength = &f.maxLength
	}
	if f.startIndex < 0 || f.startIndex > fetchargs.MaxStartIndex {
		return "", usageErrorf(hint, "--start-index must be from 0 to %d; got %d", fetchargs.MaxStartIndex, f.startIndex)
	}
	if f.startIndex > 0 {
		args.StartIndex = &f.startIndex
	}
	if f.maxBytes < 1 {
		return "", usageErrorf(hint, "--max-bytes must be 1 or more; got %d", f.maxBytes)
	}
	if f.timeout <= 0 {
		return "", usageErrorf(hint, "--timeout must be positive, like 30s or 2m; got %s", f.timeout)
	}
	doc, err := args.JSON()
	if err != nil {
		return "", internalErrorf("encode the fetch arguments: %v", err)
	}
	return doc, nil
}

// readData returns the -d value: literal, @FILE, or @- for stdin, at most
// fetchargs.MaxRequestBodyBytes.
func readData(a *app, data string) (string, error) {
	name, ok := strings.CutPrefix(data, "@")
	if !ok {
		if len(data) > fetchargs.MaxRequestBodyBytes {
			return "", usageErrorf("send at most 64 KiB", "-d: the body is larger than 64 KiB")
		}
		return data, nil
	}
	var r io.Reader
	switch name {
	case "":
		return "", usageErrorf("write -d @FILE or -d @-", "-d @: missing file name")
	case "-":
		r = a.stdin
	default:
		fh, err := os.Open(name)
		if err != nil {
			return "", usageErrorf("-d @FILE reads the body from FILE", "-d: %v", err)
		}
		defer fh.Close()
		if fi, err := fh.Stat(); err == nil && !fi.Mode().IsRegular() {
			return "", usageErrorf("-d @FILE reads the body from a regular file", "-d: %s is not a regular file", name)
		}
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, fetchargs.MaxRequestBodyBytes+1))
	if err != nil {
		return "", usageErrorf("-d @FILE reads the body from FILE", "-d: %v", err)
	}
	if len(b) > fetchargs.MaxRequestBodyBytes {
		return "", usageErrorf("send at most 64 KiB", "-d %s: the body is larger than 64 KiB", data)
	}
	return string(b), nil
}

// parseHeader splits "Name: value". The name must be an HTTP token and the
// value free of control characters; errors never quote the value.
func parseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	if !ok {
		return "", "", fmt.Errorf("no colon; want 'Name: value'")
	}
	name = strings.TrimSpace(name)
	value = strings.TrimSpace(value)
	if name == "" {
		return "", "", fmt.Errorf("empty header name")
	}
	if !httpguts.ValidHeaderFieldName(name) {
		return "", "", fmt.Errorf("%q is not a valid header name", safetext.Short(name))
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return "", "", fmt.Errorf("the value of %s has control characters", name)
	}
	if !utf8.ValidString(value) {
		return "", "", fmt.Errorf("the value of %s is not valid UTF-8", name)
	}
	return name, value, nil
}

// progressThreshold is the body size above which `get -o` draws a progress
// bar on a terminal.
const progressThreshold = 1 << 20

// newOutputFile is download.NewFile for -o FILE, its refusals usage
// errors that name the flag.
func newOutputFile(path string) (*download.File, error) {
	if path == "-" {
		return nil, usageErrorf("to print the body, use --format raw without -o", "-o - is not supported")
	}
	file, err := download.NewFile(path)
	if err != nil {
		hint := "-o FILE must be in an existing directory"
		switch {
		case errors.Is(err, download.ErrIsDirectory):
			hint = "-o names the file to write"
		case errors.Is(err, download.ErrNotRegular):
			hint = "-o names a regular file to write (or replace); without -o the body is printed"
		}
		return nil, usageErrorf(hint, "-o %v", err)
	}
	return file, nil
}

// approver picks who settles an uncovered target: --yes approves this call
// only; a person at a terminal is asked; anyone else is refused.
func (a *app) approver(ctx context.Context, yes bool) broker.Approver {
	switch {
	case yes:
		return broker.ApproveOnce()
	case a.interactive():
		ta := &broker.TerminalApprover{In: ctxio.NewReader(ctx, a.stdin), Out: a.stderr}
		if ws, err := a.workspace(); err == nil {
			ta.RulesFile = ws.RulesPath() // where "always" saves the rule
		}
		return ta
	}
	return broker.NonInteractive()
}

// approverName names the approver for diagnostics.
func approverName(yes, interactive bool) string {
	switch {
	case yes:
		return "yes"
	case interactive:
		return "terminal"
	}
	return "none"
}

func runGet(ctx context.Context, a *app, cmd *cobra.Command, rawURL string, f getFlags) error {
	// Under --json even a usage error found here is the one JSON object
	// (invalid_arguments, exit 2); flags cobra cannot parse fail before
	// --json is known and stay text.
	argsJSON, err := buildFetchArgs(a, cmd, rawURL, f)
	if err != nil {
		return a.getFailed(f, err)
	}
	sc, err := a.scope(f.egress.upstreamProxy, true)
	if err != nil {
		return a.getFailed(f, err)
	}
	ws, profile := sc.Workspace, sc.Profile
	log := a.log()

	eopts, err := a.egressFor(sc, f.egress, f.timeout, log)
	if err != nil {
		return a.getFailed(f, err)
	}
	client := egress.NewClient(eopts)
	defer client.CloseIdleConnections()

	var sink *download.File
	if f.output != "" {
		if sink, err = newOutputFile(f.output); err != nil {
			return a.getFailed(f, err)
		}
		defer sink.Discard()
	}
	var bar *download.Bar
	if f.output != "" && a.progress() {
		bar = download.NewBar(a.stderr, progressThreshold, a.termWidth)
	}
	if sink != nil || bar != nil {
		client.Transport = &download.Transport{Next: client.Transport, File: sink, Bar: bar}
	}

	fo := &fetch.Options{
		MaxBodyBytes: f.maxBytes,
		Timeout:      f.timeout,
		Logger:       log,
		UserAgent:    getUserAgent(),
	}
	if f.respectRobots {
		fo.Robots = robotscheck.New(nil)
	}
	var tl tool.Tool = fetch.NewFetch(client, fo)
	if sink != nil {
		tl = wholeBody{Fetch: tl.(*fetch.Fetch), maxBytes: f.maxBytes, file: f.output}
	}
	b := &broker.Broker{
		Scope:    sc,
		Approver: a.approver(ctx, f.yes),
		Audit:    a.auditLog(ws),
		Logger:   log,
		// Only the command line can approve one call up front.
		UnansweredHint: "or pass --yes to approve this call once",
	}
	diag.For(log, diag.DomainCLI).Log(ctx, diag.L2, "get", "root", ws.Root, "profile", string(profile),
		"approver", approverName(f.yes, a.interactive()), "max_bytes", f.maxBytes, "timeout", f.timeout, "output_file", f.output != "")
	res := b.Call(ctx, tl, argsJSON)
	bar.Finish()
	diag.For(log, diag.DomainCLI).Log(ctx, diag.L2, "get done", "is_error", res.IsError, "reason", string(res.Reason), "status", res.Status, "bytes", res.Bytes)
	if res.IsError && ctx.Err() != nil {
		return interrupted(f.json, func(err error) error { return a.getFailed(f, err) })
	}
	if r := res.RuleNotSaved; r != nil {
		// "always" was answered, but the rule was not saved (or does not
		// count yet): the user is told, not only the diagnostics.
		fmt.Fprintf(a.stderr, "ocfetch: warning: %s: %s\n", r.Code, safetext.Line(r.Message))
		if r.Hint != "" {
			fmt.Fprintf(a.stderr, "  hint: %s\n", safetext.Line(r.Hint))
		}
	}
	if res.IsError {
		return a.getRefused(f, res)
	}
	out, ok := fetch.OutputOf(res.Structured)
	if !ok {
		return a.getFailed(f, refusal.New(refusal.InternalError, "the fetch tool returned no structured output"))
	}
	if sink != nil {
		if err := sink.Commit(out.Bytes); err != nil {
			// Exit 4, internal_error, with the error's text, whatever it
			// wraps: a file get could not write is a failure of the call
			// (get has no exit 1), never taken for a policy refusal.
			return a.getFailed(f, &exitError{code: exitFailed, reason: refusal.InternalError, msg: err.Error()})
		}
	}
	if f.json {
		if err := writeJSON(a.stdout, getJSON{OK: true, Output: out}); err != nil {
			return err
		}
	} else if sink != nil {
		// -o FILE: the body is in the file; stdout gets one line saying
		// what was written, without the header summary.
		status := strconv.Itoa(out.Status)
		if t := http.StatusText(out.Status); t != "" {
			status += " " + t
		}
		fmt.Fprintf(a.stdout, "HTTP %s\nwrote %d bytes to %s\n", status, out.Bytes, safetext.Line(f.output))
	} else {
		printResponse(a.stdout, out, f, sink, isTerminal(a.stdout))
	}
	if res.AuditFailure != nil {
		// The response was delivered, but its audit line is lost: said on
		// stderr and in the exit status, never only under -v.
		return refusalError(res.AuditFailure)
	}
	return nil
}

// wholeBody is the fetch tool of `get -o FILE`: a body cut at --max-bytes
// is no file to write, so it is the call's result, response_too_large,
// and the broker audits it so (no status, as every refusal after the
// response), not as the ok of the cut body.
type wholeBody struct {
	*fetch.Fetch
	maxBytes int64
	file     string
}

func (w wholeBody) InvokableRun(ctx context.Context, argsJSON string) (*tool.Result, error) {
	res, err := w.Fetch.InvokableRun(ctx, argsJSON)
	if err != nil || res == nil || res.IsError {
		return res, err
	}
	if out, ok := fetch.OutputOf(res.Structured); ok && out.BodyTruncated {
		return tool.ErrorResult(refusal.Newf(refusal.ResponseTooLarge,
			"the body is larger than --max-bytes %d; %s was not written", w.maxBytes, w.file).
			WithHint("raise --max-bytes")), nil
	}
	return res, nil
}

// resultError turns an error result back into the refusal it reports.
func resultError(res *tool.Result) *refusal.Error {
	r := refusal.New(res.Reason, res.Message)
	if res.Hint != "" {
		r = r.WithHint(res.Hint)
	}
	return r
}

// getUserAgent is the default User-Agent of get and mcp alike, with this
// build's version ("dev" for a build without one: "(devel)" is no
// product version).
func getUserAgent() string {
	v := plainVersion()
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	return "ocfetch/" + v + " (+https://github.com/ocfetch/ocfetch)"
}

// getRefused reports an error result of the fetch tool. A refused
// off-target redirect also gives its full Location, for a new call: the
// --json object's redirect_to, or a "redirect_to:" line on stderr. It goes
// to the caller only, never to a log.
func (a *app) getRefused(f getFlags, res *tool.Result) error {
	return a.getFailed(f, resultError(res), res.RedirectTo)
}

// getFailed reports a refusal or failure of get: in --json mode as the
// error object on stdout (and nothing on stderr), else as the one line and
// hint run prints (and redirectTo, when given, as the JSON field or a
// line after the hint). A tool's invalid_arguments is a usage error here: every
// argument came from a flag.
func (a *app) getFailed(f getFlags, err error, redirectTo ...string) error {
	e := classify(err)
	if e.reason == refusal.InvalidArguments && e.code != exitUsage {
		// The tool's hint speaks of its JSON arguments; here they were flags.
		e.code = exitUsage
		e.hint = "run 'ocfetch get --help' for usage"
	}
	if len(redirectTo) > 0 {
		e.redirectTo = redirectTo[0]
	}
	if f.json {
		reason := e.reason
		if reason == "" {
			reason = refusal.InternalError
			if e.code == exitUsage {
				reason = refusal.InvalidArguments
			}
		}
		if werr := writeJSON(a.stdout, errorJSON{Error: errorField{Reason: reason, Message: safetext.Line(e.msg), Hint: safetext.Line(e.hint), RedirectTo: e.redirectTo}}); werr != nil {
			return werr
		}
		e.quiet = true
	}
	return e
}

// printResponse writes the human form through the one renderer
// (fetch.WriteOutput for a person): what the server chose goes through
// safetext.Line, the content on a terminal through safetext.TerminalWriter,
// and a pipe gets the content's bytes untouched. A write error (a closed
// pipe) is not the call's failure: the response was delivered.
//
// The output is buffered (one write for a page of up to 64 KiB, instead of
// one per line): the whole response is printed at once either way.
func printResponse(w io.Writer, out fetch.Output, f getFlags, sink *download.File, terminal bool) {
	opt := fetch.RenderOptions{For: fetch.ForPerson, Terminal: terminal}
	if sink != nil {
		opt.SavedTo = f.output
	}
	bw := batchwrite.New(w, 64<<10)
	if fetch.WriteOutput(bw, out, opt) == nil {
		bw.Flush()
	}
}
