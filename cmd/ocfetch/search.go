package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/search"
)

// searchFlags are the flags of `ocfetch search`.
type searchFlags struct {
	count   int
	timeout time.Duration
	yes     bool
	json    bool
	backend search.Config // --backend, --backend-url, --key-file
	egress  egressFlags
}

func newSearchCmd(a *app) *cobra.Command {
	var f searchFlags
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the web with the configured backend, within the workspace's rules",
		Long: `search sends QUERY to one search backend and prints the results (rank,
title, URL, snippet). The results' pages are not fetched.

The backend is configured in ocfetch's configuration directory
(search.json, and a key file of mode 0600 for Brave and Tavily), or by
--backend, --backend-url and --key-file. Its host:port is decided like any
fetch: a public backend must be https and covered by a saved rule (ocfetch
rules allow HOST) or approved (--yes, or the prompt on a terminal); a
SearXNG on this machine needs local mode (profile permissive and its port
in local_fetch.json).

The query goes to the backend only: never to the audit log, which records
"GET <backend host>" and the outcome.

Exit codes: 0 results delivered (maybe none), 2 usage error, 3 refused by
policy or not configured, 4 the backend failed (error status, rate limit,
malformed answer, network, timeout), 130 interrupted (Ctrl-C; under --json
after the object, reason cancelled).`,
		Example: `  ocfetch search 'go generics tutorial'
  ocfetch search --count 5 --json 'rfc 9110 retry-after' | jq -r '.results[].url'
  ocfetch search --backend searxng --backend-url http://127.0.0.1:8888 --profile permissive golang   # after: ocfetch local allow 8888
  ocfetch search --backend brave --key-file ~/.config/ocfetch/brave.key --yes 'mcp sdk'`,
		// A missing or extra QUERY is found here, not by cobra's Args, so
		// that --json reports it as the JSON error object too.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := exactArgs("QUERY")(cmd, args); err != nil {
				return a.searchFailed(f, err)
			}
			return runSearch(cmd.Context(), a, args[0], f)
		},
		// --json reports usage errors found before RunE as its object too.
		Annotations: map[string]string{jsonErrorsAnnotation: "true"},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.count, "count", "n", search.DefaultResults, fmt.Sprintf("return at most `N` results (1 to %d)", search.MaxResults))
	fl.DurationVar(&f.timeout, "timeout", search.DefaultTimeout, "deadline (`DUR`) for the whole call")
	fl.BoolVarP(&f.yes, "yes", "y", false, "approve the backend's host once (never over a deny rule, the guard or local mode)")
	fl.BoolVar(&f.json, "json", false, `print one JSON object: {"ok": true, "backend", "host", "count", "results": [{"rank", "title", "url", "snippet"}]} or {"ok": false, "error": {"reason", "message", "hint"}}`)
	fl.StringVar(&f.backend.Backend, "backend", "", "search `NAME`: searxng, brave or tavily (default: search.json's)")
	fl.StringVar(&f.backend.URL, "backend-url", "", "the backend's `URL` (a SearXNG instance's base URL; another endpoint for brave or tavily)")
	fl.StringVar(&f.backend.KeyFile, "key-file", "", "`FILE` holding the API key, mode 0600 (default: search.json's key_file, else search.key in the configuration directory)")
	cmd.RegisterFlagCompletionFunc("backend", cobra.FixedCompletions([]string{"searxng", "brave", "tavily"}, cobra.ShellCompDirectiveNoFileComp))
	addEgressFlags(cmd, &f.egress)
	return cmd
}

// searchJSON is `search --json`'s object on success.
type searchJSON struct {
	OK bool `json:"ok"`
	search.Output
}

func runSearch(ctx context.Context, a *app, query string, f searchFlags) error {
	fail := func(err error) error { return a.searchFailed(f, err) }
	if f.count < 1 || f.count > search.MaxResults {
		return fail(usageErrorf("run 'ocfetch search --help' for usage", "--count must be 1 to %d", search.MaxResults))
	}
	if f.timeout <= 0 {
		return fail(usageErrorf("run 'ocfetch search --help' for usage", "--timeout must be positive"))
	}
	args, err := json.Marshal(struct {
		Query string `json:"query"`
		Count int    `json:"count"`
	}{query, f.count})
	if err != nil {
		return fail(internalErrorf("encode the arguments: %v", err))
	}
	// The scope first: a bad --profile or --root is a usage error, whatever
	// the backend's configuration.
	sc, err := a.scope(f.egress.upstreamProxy, true)
	if err != nil {
		return fail(err)
	}
	backend, err := search.Load(&search.LoadOptions{Dir: a.layers.configDir, Flags: f.backend})
	if err != nil {
		return fail(search.Refusal(err))
	}
	ws := sc.Workspace
	log := a.log()
	eopts, err := a.egressFor(sc, f.egress, f.timeout, log)
	if err != nil {
		return fail(err)
	}
	client := egress.NewClient(eopts)
	defer client.CloseIdleConnections()

	t := search.New(client, backend, &search.Options{Timeout: f.timeout, Logger: log})
	b := &broker.Broker{
		Scope:          sc,
		Approver:       a.approver(ctx, f.yes),
		Audit:          a.auditLog(ws),
		Logger:         log,
		UnansweredHint: "or pass --yes to approve this call once",
	}
	diag.For(log, diag.DomainCLI).Log(ctx, diag.L2, "search", "root", ws.Root, "backend", backend.Name(), "count", f.count)
	res := b.Call(ctx, t, string(args))
	if res.IsError && ctx.Err() != nil {
		return interrupted(f.json, fail)
	}
	if r := res.RuleNotSaved; r != nil {
		fmt.Fprintf(a.stderr, "ocfetch: warning: %s: %s\n", r.Code, r.Message)
	}
	if res.IsError {
		return fail(resultError(res))
	}
	out, ok := res.Structured.(search.Output)
	if !ok {
		return fail(refusal.New(refusal.InternalError, "the search tool returned no structured output"))
	}
	if f.json {
		if err := writeJSON(a.stdout, searchJSON{OK: true, Output: out}); err != nil {
			return err
		}
	} else if _, err := io.WriteString(a.stdout, res.Content); err != nil {
		return internalErrorf("write output: %v", err)
	}
	if res.AuditFailure != nil {
		return refusalError(res.AuditFailure)
	}
	return nil
}

// searchFailed reports a refusal or failure as get does: under --json the
// error object on stdout, else the one line and hint on stderr.
func (a *app) searchFailed(f searchFlags, err error) error {
	e := classify(err)
	if e.reason == refusal.InvalidArguments && e.code != exitUsage {
		e.code, e.hint = exitUsage, "run 'ocfetch search --help' for usage"
	}
	if f.json {
		reason := e.reason
		if reason == "" {
			reason = refusal.InternalError
			if e.code == exitUsage {
				reason = refusal.InvalidArguments
			}
		}
		if werr := writeJSON(a.stdout, errorJSON{Error: errorField{Reason: reason, Message: safetext.Line(e.msg), Hint: safetext.Line(e.hint)}}); werr != nil {
			return werr
		}
		e.quiet = true
	}
	return e
}
