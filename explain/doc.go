// Package explain says what policy.Decide decides for a URL, and why,
// sending nothing and resolving no name: the decision, the layer, rule
// and file that made it, the trace Decide kept (local mode's verdict, the
// address check of an IP literal), the scheme rule, and the state of
// every layer's files. It computes; a front end prints the [Explanation]
// it returns (`ocfetch explain URL`, its text form or its --json object).
//
// The URL is parsed exactly as the Fetch tool parses it
// (fetch.PrepareCall) and decided under the caller's scope.Scope with
// policy.Args.Trace, so the verdict is the one `ocfetch get URL` would
// get:
//
//	sc, err := scope.Open(ws, scope.Flags{}, layers)
//	// …
//	e := explain.For(ctx, sc, policy.FrontFetchTool, "https://example.com/docs")
//	fmt.Println(e.Decision, e.Layer, e.Rule, e.File) // allow workspace allow example.com:443 /p/.oc_chat/rules.json
package explain
