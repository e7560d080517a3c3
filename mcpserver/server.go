package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/respcache"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/workspace"
)

// ServerName is the MCP implementation name the server reports.
const ServerName = "ocfetch"

// server holds what every call of one *mcp.Server shares.
type server struct {
	opts    Options
	log     *slog.Logger
	client  *http.Client
	newTool func(client *http.Client) tool.Tool
	// fixed is the workspace of every call when --root is given.
	fixed *workspace.Workspace
	// cwd is the fallback workspace: the current directory at startup.
	cwd   workspace.Workspace
	roots *rootsCache
	state *stateSigner
	// front is the HTTP front of [Serve] (nil on other transports);
	// inputEnded is done when stdio's input ends (nil elsewhere).
	front      *httpFront
	inputEnded context.Context
	// sessionOK holds the approvals answered "for this session".
	sessionOK *sessionApprovals
	// pending holds the calls prepared in a round that asked the user.
	pending *pendingCalls
	// calls holds a token for each tool call being served: at most
	// MaxConcurrentCalls at once, over every session and transport.
	calls chan struct{}
}

// MaxConcurrentCalls bounds the tool calls the server serves at once, over
// every session (the SDK hands each tools/call a goroutine of its own, with
// no bound): a call beyond it is refused at once with
// too_many_connections, before anything is read, decided, sent or
// audited, so that a client cannot make the server hold an unbounded
// number of fetches, response bodies and connections. A call waiting for
// the user's answer holds its place.
const MaxConcurrentCalls = 64

// NewServer returns an MCP server with the one tool, fetch, wired through
// the broker: every call is prepared, decided (saved rules, then the user by
// elicitation), run through the guarded egress client and audited exactly as
// `ocfetch get` does it.
//
// It fails when opts.Root is set but is not a directory, when the current
// directory cannot be used as the fallback root, and when opts.Profile is
// not a profile name. It never starts a goroutine or touches the network;
// connect the server with [Serve], [mcp.Server.Run] or [mcp.Server.Connect].
func NewServer(opts *Options) (*mcp.Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	return s.mcpServer()
}

// mcpServer builds the SDK server with the one tool.
func (s *server) mcpServer() (*mcp.Server, error) {
	info, err := s.toolInfo()
	if err != nil {
		return nil, err
	}
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	ms := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "ocfetch — least-privilege web fetch", Version: version}, &mcp.ServerOptions{
		Instructions:            s.instructions(),
		Logger:                  sdkLogger(s.log),
		Capabilities:            &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		RootsListChangedHandler: s.roots.changed,
	})
	ms.AddTool(info, s.handle)
	if err := s.addSearch(ms); err != nil {
		return nil, err
	}
	// Last, so outermost: it sees each result as the SDK would encode it.
	ms.AddReceivingMiddleware(encodeOnce)
	ms.AddSendingMiddleware(fitApprovalAnswer)
	return ms, nil
}

func newServer(opts *Options) (*server, error) {
	s := &server{roots: newRootsCache(), sessionOK: newSessionApprovals(), pending: newPendingCalls()}
	if opts != nil {
		s.opts = *opts
	}
	s.calls = make(chan struct{}, cmpOr(s.opts.maxCalls, MaxConcurrentCalls))
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = diag.Discard()
	}
	s.log = diag.For(s.log, diag.DomainMCP)
	if s.opts.Layers == nil {
		s.opts.Layers = testLayers
	}
	if s.opts.Profile != "" {
		if _, err := risk.Parse(s.opts.Profile); err != nil {
			return nil, fmt.Errorf("mcpserver: --profile: %w", err)
		}
	}
	if s.opts.Root != "" {
		ws, err := workspace.Resolve(s.opts.Root)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: --root: %w", err)
		}
		s.fixed = &ws
	} else {
		ws, err := workspace.Resolve()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: fallback root: %w", err)
		}
		s.cwd = ws
	}
	eo := egress.Options{Timeout: DefaultFetchTimeout}
	if s.opts.Egress != nil {
		eo = *s.opts.Egress
		if eo.Timeout == 0 {
			eo.Timeout = DefaultFetchTimeout
		}
	}
	if eo.Logger == nil {
		eo.Logger = s.opts.Logger
	}
	// The fetch's own deadline binds; the client's must not cut it short.
	eo.Timeout = max(eo.Timeout, s.opts.FetchTimeout)
	s.client = egress.NewClient(&eo)
	s.newTool = s.opts.newTool
	if s.newTool == nil {
		fo := fetch.Options{
			MaxBodyBytes:     s.opts.MaxBodyBytes,
			DefaultMaxLength: s.opts.DefaultMaxLength,
			Timeout:          s.opts.FetchTimeout,
			UserAgent:        cmpOr(s.opts.UserAgent, userAgent(s.opts.Version)),
			Logger:           s.opts.Logger,
			Robots:           s.opts.Robots,
		}
		if s.opts.CacheTTL >= 0 {
			// One cache for the process, an option of every call's Fetch.
			fo.Cache = respcache.New(&respcache.Options{TTL: s.opts.CacheTTL})
		}
		s.newTool = func(client *http.Client) tool.Tool {
			o := fo
			return fetch.NewFetch(client, &o)
		}
	}
	st, err := newStateSigner()
	if err != nil {
		return nil, err
	}
	s.state = st
	return s, nil
}

// toolInfo builds the MCP description of the tool from the tool's own Info,
// so the schema a model sees is the one PrepareCall enforces.
func (s *server) toolInfo() (*mcp.Tool, error) {
	t := s.newTool(s.client)
	info, err := t.Info(context.Background())
	if err != nil {
		return nil, fmt.Errorf("mcpserver: tool info: %w", err)
	}
	return &mcp.Tool{
		Name:         info.Name,
		Title:        "Fetch a web page",
		Description:  info.Description,
		InputSchema:  info.InputSchema,
		OutputSchema: outputSchemaFor(s.opts.CacheTTL),
		Annotations: &mcp.ToolAnnotations{
			Title:          "Fetch a web page",
			ReadOnlyHint:   false, // POST is allowed
			OpenWorldHint:  ptr(true),
			IdempotentHint: false,
		},
	}, nil
}

// testLayers is the Layers of a server whose Options leave them nil: nil
// (the platform's places) except in this package's tests, which set it in
// TestMain so that no test reads the real trust store.
var testLayers *policy.Layers

// instructions says which workspace root is in use, and whether the user
// trusts it. They are sent at initialization, before the client's roots
// can be listed, so without --root they state the rule rather than a path
// that might change.
func (s *server) instructions() string {
	var root string
	if s.fixed != nil {
		root = fmt.Sprintf("Workspace root: %s (from --root).", s.fixed.Root) + " " + s.trustSentence(*s.fixed)
	} else {
		root = fmt.Sprintf("Workspace root: the client's first file:// root (MCP roots) when the client declares roots, else the current directory %s.", s.cwd.Root) +
			" Whether the user trusts that workspace is checked on every call: in an untrusted workspace what its .oc_chat/ files grant (a permissive profile, local ports, allow rules, an upstream proxy) is ignored, and a call that needs it is refused with workspace_untrusted; ask the user to run the `ocfetch trust --root DIR` its hint names."
	}
	tools := "ocfetch serves one tool, fetch: a bounded HTTP GET or POST with least privilege. "
	if b := s.opts.Search; b != nil {
		tools = "ocfetch serves two tools: fetch, a bounded HTTP GET or POST with least privilege, and search, one query to the user's search backend (" + b.Name() +
			"), whose host is approved like a fetch's; search results are not fetched, call fetch with a result's URL to read it. "
	}
	return tools +
		"Public hosts need https; each new host:port needs the user's approval (asked by elicitation when the client supports it) or a rule the user saves (ask the user to run `ocfetch rules allow HOST:PORT`; never run it yourself). " +
		"A refusal is an error result whose text starts with a reason code such as not_approved or https_required; it is final for that call. " +
		root + " Its .oc_chat/ holds the rules, the local-mode ports, the settings and the audit log."
}

// trustSentence says whether the user trusts ws, as of now (each call
// checks again).
func (s *server) trustSentence(ws workspace.Workspace) string {
	st, err := s.opts.Layers.DecidingTrustStore(context.Background())
	var ok bool
	if err == nil {
		ok, err = st.Trusted(ws.Root)
	}
	switch {
	case err != nil:
		return "The trust store cannot be read, so this workspace is not trusted: its .oc_chat/ files' grants (a permissive profile, local ports, allow rules, an upstream proxy) are ignored, and a call that needs one is refused with workspace_untrusted."
	case ok:
		return "The user trusts this workspace: its .oc_chat/ files' grants count (checked again on every call)."
	}
	return "The user has not trusted this workspace: what its .oc_chat/ files grant (a permissive profile, local ports, allow rules, an upstream proxy) is ignored, and a call that needs it is refused with workspace_untrusted; ask the user to run `ocfetch trust --root " + safetext.ShellQuote(ws.Root) + "` if they trust its files. Its deny rules and profile strict always apply."
}

// scopeOf is the scope of a call in ws: the profile flag, else ws's
// settings.json; the upstream proxy is the one the server's client goes
// through, which only the --root workspace's settings.json can name
// (Options.UpstreamFrom).
func (s *server) scopeOf(ctx context.Context, ws workspace.Workspace) (*scope.Scope, error) {
	sc, err := scope.OpenContext(ctx, ws, scope.Flags{Profile: s.opts.Profile, NoSettingsUpstream: true}, s.opts.Layers)
	if err != nil {
		return nil, err
	}
	if s.opts.Egress != nil && s.opts.Egress.Upstream != nil {
		sc.Upstream, sc.UpstreamFrom = s.opts.Egress.Upstream, scope.FromFlag
		if s.opts.UpstreamFrom == scope.FromSettings && s.fixed != nil && ws.Root == s.fixed.Root {
			sc.UpstreamFrom = scope.FromSettings // a grant of --root's settings.json
		}
	}
	return sc, nil
}

// handle serves tools/call. Every outcome is a CallToolResult: a refusal or
// failure is isError with "reason: message", never a protocol error, and a
// panic below becomes internal_error rather than a dead server.
func (s *server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return s.serveTool(ctx, req, s.newTool)
}

// serveTool is handle for the tool newTool builds (fetch, or search).
func (s *server) serveTool(ctx context.Context, req *mcp.CallToolRequest, newTool func(*http.Client) tool.Tool) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("tool call panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = errorResult(tool.ErrorResult(refusal.New(refusal.InternalError, "internal error"))), nil
		}
	}()
	select {
	case s.calls <- struct{}{}:
		defer func() { <-s.calls }()
	default:
		s.log.Warn("tool call refused: too many calls in flight", "limit", cap(s.calls))
		return errorResult(tool.ErrorResult(refusal.Newf(refusal.TooManyConnections,
			"ocfetch mcp is serving its limit of %d calls at once", cap(s.calls)).
			WithHint("call again when a call in flight has ended"))), nil
	}
	ctx, cancel := s.callContext(ctx, req)
	defer cancel()
	// One check of each policy file for the whole call: the scope, the
	// decision, the preflight and the run (securefile.Call).
	ctx, _ = securefile.EnsureCall(ctx)
	c := s.newCall(req)
	ws, needRoots, rerr := s.workspaceFor(ctx, c)
	if rerr != nil {
		return errorResult(tool.ErrorResult(rerr)), nil
	}
	if needRoots {
		s.log.Log(ctx, diag.L2, "asking the client for its roots", "protocol", c.protocol)
		return c.inputRequired(inputRoots, &mcp.ListRootsParams{}, callState{})
	}
	sc, perr := s.scopeOf(ctx, ws)
	if perr != nil {
		return errorResult(tool.ErrorResult(perr)), nil
	}
	profile := sc.Profile
	t := newTool(s.client)
	b := &broker.Broker{Scope: sc, Audit: audit.Open(ws).WithSink(s.opts.AuditSink), Logger: s.opts.Logger, ForModel: true}

	// p is the call, prepared once per round — or, on the multi round-trip
	// protocol, once for the round that asked and the round that answers.
	var p *broker.Prepared
	switch {
	case !c.caps.elicitation:
		b.Approver = broker.NonInteractive()
	case !c.multiRoundTrip:
		b.Approver = &sessionApprover{session: req.Session, ws: ws}
	default:
		if a, ok := c.answered(ws); ok {
			b.Approver = a
			p = s.pending.take(c.state.Nonce, ws.Root) // nil: not kept, prepared again below
			break
		}
		p = b.Prepare(ctx, t, c.args)
		if a, ok := s.coveredApprover(c, p.Requirements(), ws); ok {
			b.Approver = a // approved for this session: no question
			break
		}
		// On the multi round-trip protocol the server may not ask
		// mid-call: the question goes back in the result and the client
		// calls again with the answer. The decision step (policy.Decide,
		// through the broker: nothing run, recorded or saved) tells whether
		// the question would be asked at all; the prepared call waits for
		// the answer under the state's nonce.
		if ask, ok := b.PendingFor(ctx, p); ok {
			s.log.Log(ctx, diag.L2, "asking the user to approve", "target", ask.Requirement.Target.String(), "root", ws.Root, "protocol", c.protocol)
			st := callState{Root: ws.Root, Target: ask.Requirement.Target.String(), Nonce: newNonce()}
			s.pending.put(st.Nonce, ws.Root, c.args, p)
			return c.inputRequired(inputApproval, elicitParams(ask, ws), st)
		}
		b.Approver = broker.NonInteractive()
	}
	if p == nil {
		p = b.Prepare(ctx, t, c.args)
	}
	b.Approver = s.withSessionApprovals(req.Session, ws, b.Approver)
	r := b.Run(ctx, p)
	s.log.Log(ctx, diag.L2, "call served", "root", ws.Root, "profile", string(profile), "protocol", c.protocol, "reason", string(r.Reason), "status", r.Status)
	return toCallToolResult(r), nil
}

// toCallToolResult maps a broker result onto MCP: text content always;
// structured content and no isError for a delivered response; isError with
// "reason: message" and the hint for anything else (and, for a refused
// off-target redirect, redirect_to in the text and structured content).
//
// A call whose audit line could not be written says so in the result
// (audit_unavailable), never only in diagnostics.
func toCallToolResult(r *tool.Result) *mcp.CallToolResult {
	if r.IsError {
		return errorResult(r)
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Content}}}
	if f := r.AuditFailure; f != nil {
		out.Content = append(out.Content, &mcp.TextContent{Text: refusalText(f.Code, f.Message, "")})
		out.Meta = mcp.Meta{"ocfetch/audit": string(f.Code)}
	}
	if f := r.RuleNotSaved; f != nil {
		out.Content = append(out.Content, &mcp.TextContent{Text: refusalText(f.Code, f.Message, f.Hint)})
		if out.Meta == nil {
			out.Meta = mcp.Meta{}
		}
		out.Meta["ocfetch/rule_not_saved"] = string(f.Code)
	}
	if o, ok := outputFrom(r.Structured); ok {
		out.StructuredContent = o
	} else if o, ok := searchOutput(r.Structured); ok {
		out.StructuredContent = o
	}
	return out
}

func errorResult(r *tool.Result) *mcp.CallToolResult {
	reason := r.Reason
	if reason == "" {
		reason = refusal.InternalError
	}
	hint := r.Hint
	if r.ModelHint != "" {
		hint = r.ModelHint // the same advice, worded for a model
	}
	out := &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: refusalText(reason, r.Message, hint)}},
		Meta:    mcp.Meta{"ocfetch/reason": string(reason)},
	}
	// A refused off-target redirect hands the model its full Location (in
	// the text and in structured content that fits the output schema), so
	// it can make a new call, decided on its own.
	if r.RedirectTo != "" {
		out.Content[0].(*mcp.TextContent).Text += "\nredirect_to: " + r.RedirectTo
		if o, ok := outputFrom(r.Structured); ok && o.RedirectTo != "" {
			out.StructuredContent = o
		}
	}
	return out
}

// refusalText is the text content of a refusal: "code: message" and a
// "hint: …" line, each made safe to show (safetext.Line) — a message may
// name a path or a value a workspace or a server chose.
func refusalText(code refusal.Code, message, hint string) string {
	text := string(code) + ": " + safetext.Line(message)
	if hint != "" {
		text += "\nhint: " + safetext.Line(hint)
	}
	return text
}

// argsOf returns the raw arguments as the tool's PrepareCall expects them:
// absent arguments are an empty object, anything else is passed through
// untouched for the tool's strict decoder to judge.
func argsOf(raw json.RawMessage) string {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return "{}"
	}
	return string(raw)
}

func ptr[T any](v T) *T { return &v }

// userAgent is the default User-Agent of this server's fetches.
func userAgent(version string) string {
	return "ocfetch/" + cmpOr(version, "dev") + " (+https://github.com/ocfetch/ocfetch)"
}
