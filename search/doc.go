// Package search is the search tool: one query to a configured web search
// backend, decided, guarded and audited exactly as a fetch is.
//
// A [Backend] is one search API: [SearXNG] (a self-hosted instance's JSON
// API), [Brave] (the Brave Search API) or [Tavily]. [Search] implements
// tool.Tool: [Search.PrepareCall] decodes the arguments strictly and asks
// for one network requirement, the backend endpoint's host and port, which
// the broker decides with policy.Decide like any fetch of that origin (a
// public backend needs https and a rule or an approval; a loopback
// SearXNG needs local mode); [Search.InvokableRun] sends the query through
// the guarded client the composition root built (egress.NewClient), with a
// deadline, a response cap and no redirects; [Search.AuditSummary] is
// "<METHOD> <backend host>", never the query, never the key.
//
// A backend's error status is search_backend_failed naming the status, a
// 429 is search_rate_limited with its Retry-After, and an answer that is
// not of the API's documented shape is search_backend_failed too, never an
// empty success. Results are made safe for a model (safetext), cut to the
// call's count, and never fetched.
//
// The backend and its key come from the user's configuration directory
// ([Load]: os.UserConfigDir()/ocfetch/search.json and a 0600 key file),
// never from a workspace, or from flags.
//
//	backend, err := search.Load(&search.LoadOptions{Flags: search.Config{Backend: "searxng", URL: "http://127.0.0.1:8888"}})
//	if err != nil { return search.Refusal(err) }
//	sc, err := scope.Open(ws, scope.Flags{}, nil) // the workspace's frame: profile, trust, layers
//	t := search.New(egress.NewClient(&egress.Options{Timeout: 20 * time.Second}), backend, &search.Options{})
//	res := (&broker.Broker{Scope: sc, Audit: audit.Open(sc.Workspace)}).Call(ctx, t, `{"query": "go generics"}`)
package search
