// Command ocfetch is a least-privilege web fetch for AI agents: it decides
// whether a network access is allowed, performs one bounded request, and
// hands back a result that is safe to show a model and safe to log.
//
//	ocfetch demo                               the offline tour
//	ocfetch get URL [flags]                    one bounded fetch
//	ocfetch rules list|allow|deny|remove       saved network rules
//	ocfetch local show|allow|revoke            the loopback port allowlist
//	ocfetch audit [--tail N] [--json]          the audit log
//	ocfetch mcp [--http ADDR]                  the fetch tool over MCP
//	ocfetch proxy [--listen ADDR]              the egress proxy for shells
//	ocfetch run -- CMD [ARG...]                a command behind that proxy
//	ocfetch version | completion SHELL
//
// Exit codes (scripts rely on them):
//
//	0  a response was delivered (any HTTP status, as curl does)
//	1  an internal error, or a demo step that did not behave as shown
//	2  usage error: unknown flag, missing argument, malformed value
//	3  refused by policy (the reason code says which rule)
//	4  the request failed: network, TLS, timeout, size
//	130 get was interrupted (SIGINT, SIGTERM)
//
// `run` exits with its command's status instead.
//
// Layout: one file per subcommand, each with its cobra constructor and a
// run function that takes the shared [app] (streams, root flags, the one
// resolved workspace) and can be tested without a process; main.go only
// maps errors to exit codes. The composition root is here: get builds the
// guarded client (egress.NewClient), the fetch tool and the broker,
//
//	client := egress.NewClient(&egress.Options{Timeout: timeout})
//	sc, err := a.scope(upstreamFlag, true) // scope.Open: workspace, profile, upstream, layers
//	tool := fetch.NewFetch(client, &fetch.Options{Timeout: timeout})
//	b := &broker.Broker{Scope: sc, Approver: approver, Audit: audit.Open(sc.Workspace)}
//	res := b.Call(ctx, tool, argsJSON)
//
// and mcp and proxy hand the same pieces to mcpserver and proxy.
package main
