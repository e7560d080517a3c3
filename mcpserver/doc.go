// Package mcpserver is the MCP front end of ocfetch (`ocfetch mcp`), built on
// the official Go SDK: one tool, fetch, over stdio or streamable HTTP on a
// loopback address.
//
// # Wiring
//
// The CLI's `ocfetch mcp [--root DIR] [--profile P] [--http ADDR]` is a thin
// wrapper over [Serve]:
//
//	err := mcpserver.Serve(ctx, &mcpserver.Options{
//		Root:     rootFlag,    // "" = the client's first file:// root, else the cwd
//		Profile:  profileFlag, // "" = settings.json, else standard
//		HTTPAddr: httpFlag,    // "" = stdio; else a loopback address only
//		Logger:   diag.New(os.Stderr, level),
//		Ready: func(a net.Addr) {
//			fmt.Fprintf(os.Stderr, "ocfetch mcp: serving streamable HTTP on http://%s/\n", a)
//		},
//	})
//	if errors.Is(err, mcpserver.ErrNotLoopback) { /* usage error */ }
//
// Tests and embedders that bring their own transport use [NewServer]:
//
//	ms, err := mcpserver.NewServer(&mcpserver.Options{Root: dir})
//	st, ct := mcp.NewInMemoryTransports()
//	ss, err := ms.Connect(ctx, st, nil)
//	cs, err := mcp.NewClient(impl, nil).Connect(ctx, ct, nil)
//
// # The tool
//
// The input schema and description are the fetch tool's own ([fetch.Fetch.Info]):
// url, method, headers, body, format, max_length, start_index. The schema is
// advertised but not enforced by the SDK: the tool is registered with the
// low-level [mcp.Server.AddTool], and the raw arguments go to the broker and
// fetch's strict decoder, so wrong types, unknown fields, duplicate keys and
// oversized strings get an invalid_arguments error result (audited like any
// refusal) rather than a protocol error. (The SDK's typed AddTool would
// answer those with its own untyped "validating arguments" error result,
// before the broker sees the call, after filling in defaults and with
// encoding/json's last-key-wins for duplicates.) A delivered response is text content ([fetch.Render]: a
// status line, the header summary, the content) plus structured content
// [Output], declared as the tool's output schema.
//
// Every refusal and failure is a result with isError set and the text
// "reason: message" (plus "\nhint: …"), and the reason in _meta
// "ocfetch/reason"; never a protocol error. A panic below the handler is
// internal_error, and the server keeps serving. At most
// [MaxConcurrentCalls] calls are served at once, over every session; one
// beyond is refused at once with too_many_connections (nothing decided,
// sent or audited).
//
// # Through the broker
//
// Each call builds a [broker.Broker] for the call's workspace and profile,
// with the audit log of that workspace, and hands it the fetch tool and the
// raw arguments: rules, approvals and audit lines are exactly those of
// `ocfetch get`.
//
// # Approval by elicitation
//
// A target no saved rule covers is put to the user when the client declares
// form elicitation: the message shows the tool, "<METHOD> <host>" and the
// network target (never path, query, headers or body), and the form has one
// required choice, decision: once, session, always or deny (titled options,
// oneOf const/title, as the 2025-11-25 schema has them). "session" approves
// the target for the rest of this MCP session, in memory only; "always"
// saves an allow rule in the workspace; deny, decline and cancel are
// not_approved; an accept without a decision is asked again. A client
// without elicitation gets not_approved with the hint `ocfetch rules allow
// HOST:PORT`.
//
// On protocol versions before 2026-07-28 the server asks mid-call
// (elicitation/create). From 2026-07-28 (multi round-trip requests) a server
// may not: the call returns the question as an input request with an
// HMAC-sealed request state bound to the tool, the call's arguments, the
// workspace and the target, and the client calls again with the answer. Each sealed state
// carries a nonce and an answered state is honoured once (one approval, one
// call): a replay is asked again. "always" saves a rule, so later calls need
// no state. To know whether to
// ask, the server first runs the broker's decision dry (no run, no audit
// line), so a call is audited once, with the user's answer.
//
// # Workspace root
//
// The root is resolved in one place per call: [Options.Root] (--root) if
// set; else the client's first file:// root (roots/list, or an input request
// on the multi round-trip protocol), remembered per session until the client
// says its roots changed; else the current directory at startup (also for a
// client that declares roots but answers roots/list with "method not
// found"). A client whose roots cannot be listed otherwise, or whose first
// file:// root is not a directory, gets an error result rather than another
// project's rules. The server's instructions say which source is in use.
//
// # Transports
//
// Stdio writes nothing but protocol messages to [Options.Stdout];
// diagnostics go to [Options.Logger]. It survives any line: a line that is
// not JSON gets the JSON-RPC parse error (-32700), one that is not a
// JSON-RPC message, nests deeper than [MaxNesting] or is longer than
// [MaxLineBytes] gets invalid request (-32600), with the message's id when
// it can be read and null otherwise, and the session serves on; responses
// already due are written. At most [MaxStdioPending] requests are read and
// unanswered: a client that stops reading stdout stops the reading of
// stdin. Each line is decoded once, by the guard, for
// the SDK, and each tool result encoded once. Streamable HTTP binds loopback only
// ([ErrNotLoopback]) and keeps the SDK's DNS-rebinding
// protection, plus net/http's cross-origin protection, so a web page cannot
// drive the server.
package mcpserver
