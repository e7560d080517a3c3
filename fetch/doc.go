// Package fetch implements the Fetch tool (seed 001): one bounded HTTP GET
// or POST through an injected *http.Client. Preparation validates and
// normalises the call once and emits the one shared `network` capability
// requirement for its (host, port), so one saved workspace rule covers the
// Fetch tool and a shell's network alike. The grant pair is empty: fetch
// touches no file beyond local mode's read-only allowlist.
//
// # Wiring
//
// The composition root builds the guarded client and hands it in; fetch
// never constructs one:
//
//	client := egress.NewClient(&egress.Options{Timeout: 30 * time.Second})
//	f := fetch.NewFetch(client, &fetch.Options{
//		Logger: logger,                          // diag; nil discards
//		Cache:  respcache.New(nil),              // optional: repeated GETs within a TTL
//		Robots: robotscheck.New(nil),            // optional: --respect-robots
//	})
//	b := &broker.Broker{Scope: sc, Audit: audit.Open(sc.Workspace)} // sc: scope.Open
//	res := b.Call(ctx, f, `{"url": "https://example.com/"}`)         // prepare, decide, run, audit
//
// The workspace, its profile and local mode are the Scope's and
// policy.Decide's (asked by the broker), not fetch's.
//
// # One call
//
// [Fetch.PrepareCall] decodes the arguments strictly (one JSON object; no
// unknown field, duplicate key, trailing data or wrong type; at most 256 KiB;
// see [Fetch.Info] for the schema), then decides, in order: method GET or
// POST; a body with POST only, at most 64 KiB; at most 32 headers (8 KiB a
// value, 32 KiB in all), none of Host, the hop-by-hop headers,
// Content-Length, Accept-Encoding, Expect or Proxy-*; an absolute http(s) URL
// without credentials, its fragment dropped and its host normalised
// (capability.NormalizeHost) once. That is parse-level validation only:
// whether the origin may be reached (local mode, seed 000; the address
// check; https for public hosts; rules; approval) is policy.Decide's,
// asked by the broker.
//
// [Fetch.InvokableRun] runs only the artifact bound to its context for its
// own execution id (tool.WithArtifact); it never reparses the raw
// arguments and fails closed without the artifact. It dials under the
// admission the broker bound (tool.WithAdmissions: the decision's Target
// and LoopbackPort) and fails closed without one; local mode's port is put
// on the request context for the egress guard (egress.WithRequestTarget:
// the target and its loopback admission, in one layer).
// Redirects are followed only to the approved scheme, host and port, at
// most 10 hops, each a new question to the same decision (the bound
// tool.Redecide: policy.Decide with every file read again); anything else is refused
// (redirect_off_target, naming only the redirect's scheme://host:port)
// before the next request is sent, so a 307 never replays a POST body off
// target.
//
// # robots.txt
//
// With [Options.Robots] (--respect-robots), a call first reads its
// origin's robots.txt, under the same admission and redirect decision as
// the page and through the same client, and a page the file disallows for
// robotscheck.Agent is refused (robots_disallowed) before anything else is
// sent; a 401 or 403 refuses every page, as the MCP reference fetch server
// does, and so does a 5xx (RFC 9309); another 4xx allows. One
// robotscheck.Checker is the session's cache (bounded in origins, bytes,
// time): see package robotscheck.
//
// # Bounds
//
// The whole call is bounded by [Options.Timeout] (or the call's shorter
// timeout), and by the injected client's own Timeout where that is
// shorter still (a longer one is left out of the request: it could never
// end the call first); response headers by the
// client (egress: 64 KiB); the body read by [Options.MaxBodyBytes] (5 MiB),
// counted after decompression, so a gzip bomb stops at the cap; the content
// returned by max_length (runes, default 20000) from start_index. A cut body
// or a content window that leaves text behind is reported in the result
// (body_truncated and a note; truncated and next_start_index), never silent.
//
// # Results and secrets
//
// A delivered response, whatever its status (a 404 is delivered, as curl has
// it), is a tool.Result whose Structured is an [Output] and whose Content is
// [Render] of it: a status line, the final URL, the bounded header summary
// (content-type, content-length, location, last-modified, etag, server), a
// blank line, the content, then notes. `ocfetch get --json` prints the
// Output fields; an MCP server sends Content as text and the Output (without
// its Content, which the text already carries) as structured content.
//
// Every refusal or failure is an error result (tool.ErrorResult) with a
// reason code; InvokableRun never returns a Go error. Messages, hints, log
// lines and [Fetch.AuditSummary] ("<METHOD> <host>") name the method,
// scheme, host, port, header names and files only: never the path, query,
// header values or body of the request, and never the text of a *url.Error.
package fetch
