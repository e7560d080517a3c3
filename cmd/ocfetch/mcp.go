package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/internal/startpages"
	"github.com/ocfetch/ocfetch/mcpserver"
	"github.com/ocfetch/ocfetch/respcache"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/search"
)

// mcpFlags are the flags of ocfetch mcp.
type mcpFlags struct {
	httpAddr       string
	tokenFile      string
	sessionTimeout time.Duration
	maxSessions    int
	timeout        time.Duration
	maxBytes       int64
	maxLength      int
	userAgent      string
	cacheTTL       time.Duration
	respectRobots  bool
	// search: --search-backend, --search-backend-url, --search-key-file
	// (over search.json in the user's configuration directory).
	search search.Config
	// trustRoot: --trust-root (trustroot.go).
	trustRoot string
}

func newMCPCmd(a *app) *cobra.Command {
	var (
		f  mcpFlags
		ef egressFlags
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the fetch tool (and search, when configured) over MCP (stdio, or streamable HTTP on loopback)",
		Long: `mcp serves the fetch tool (and the search tool when a search backend is
configured: search.json or --search-backend) to an MCP client, over stdio by default or over
streamable HTTP on a loopback address with --http. Calls go through the same
rules, local mode, egress guard and audit log as ocfetch get; a target no rule
covers is put to the user by elicitation where the client supports it.

The workspace root is --root, else the client's first file:// root, else the
current directory.

Over --http every request must carry "Authorization: Bearer TOKEN"; the token
is generated into a file only you can read (--token-file, default
<user config dir>/ocfetch/mcp-token) and shown, with client snippets, at start.
Sessions idle for --session-timeout are closed (the client starts a new one);
at --max-sessions a new session closes the least recently used idle one.`,
		Example: `  ocfetch mcp
  ocfetch mcp --root ~/src/project
  ocfetch mcp --http 127.0.0.1:8931
  ocfetch mcp --respect-robots   # refuse pages robots.txt disallows, as the reference fetch server does
  ocfetch mcp --root /work --trust-root /work   # a workspace mounted into a container`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), a, f, ef)
		},
	}
	cmd.Flags().StringVar(&f.httpAddr, "http", "", "serve streamable HTTP on the loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "with --http: the bearer token `FILE` (created, mode 0600, if missing; default <user config dir>/ocfetch/mcp-token)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", fetch.DefaultTimeout, "bound each fetch to `DUR`")
	cmd.Flags().Int64Var(&f.maxBytes, "max-bytes", fetch.DefaultMaxBodyBytes, "read at most `N` response body bytes a fetch (after decompression)")
	cmd.Flags().IntVar(&f.maxLength, "max-length", fetchargs.DefaultMaxLength, "return `N` characters of content a call by default (a call's max_length overrides it)")
	cmd.Flags().StringVar(&f.userAgent, "user-agent", "", "send `UA` as User-Agent unless a call sets one (default ocfetch/VERSION (+https://github.com/ocfetch/ocfetch))")
	cmd.Flags().DurationVar(&f.cacheTTL, "cache-ttl", respcache.DefaultTTL, "keep GET responses in memory for `DUR` (windows of one page read one response); 0 disables")
	cmd.Flags().BoolVar(&f.respectRobots, "respect-robots", false, "refuse a page the site's robots.txt disallows for user agent ocfetch (robots_disallowed), robots.txt read under the same decision as the page and kept for the session")
	cmd.Flags().DurationVar(&f.sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "with --http: close a session idle for `DUR`")
	cmd.Flags().StringVar(&f.search.Backend, "search-backend", "", "serve the search tool with backend `NAME` (searxng, brave, tavily; default: search.json's, if any)")
	cmd.Flags().StringVar(&f.search.URL, "search-backend-url", "", "the search backend's `URL`")
	cmd.Flags().StringVar(&f.search.KeyFile, "search-key-file", "", "`FILE` holding the search backend's API key, mode 0600")
	cmd.Flags().IntVar(&f.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "with --http: keep at most `N` sessions open; a new one beyond closes the least recently used idle session (its client gets 404 and starts a new one), or gets 503 when every session, an initialize in flight included, has a request in flight")
	addTrustRootFlag(cmd, &f.trustRoot)
	addEgressFlags(cmd, &ef)
	return cmd
}

// mcpSearch is the search tool's backend: from the flags or search.json;
// nil (fetch alone) when neither names one. A configuration given by flag
// that does not load is a usage error; a search.json that does not load is
// reported on stderr and search is not served.
func mcpSearch(a *app, f mcpFlags) (search.Backend, error) {
	b, err := search.Load(&search.LoadOptions{Dir: a.layers.configDir, Flags: f.search})
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, search.ErrNotConfigured) && f.search == (search.Config{}):
		return nil, nil
	case f.search != (search.Config{}):
		return nil, usageErrorf("fix the --search-* flags (see README, Web search)", "%v", err)
	}
	fmt.Fprintf(a.stderr, "ocfetch: warning: search is not served: %s\n", err)
	return nil, nil
}

func runMCP(ctx context.Context, a *app, f mcpFlags, ef egressFlags) error {
	httpAddr := f.httpAddr
	if httpAddr != "" {
		if err := checkListenFlag("--http", httpAddr); err != nil {
			return err
		}
	}
	switch {
	case f.sessionTimeout <= 0:
		return usageErrorf("use --session-timeout 30m", "--session-timeout must be positive, not %s", f.sessionTimeout)
	case f.maxSessions <= 0:
		return usageErrorf(fmt.Sprintf("use --max-sessions %d", mcpserver.DefaultMaxSessions), "--max-sessions must be positive, not %d", f.maxSessions)
	case f.timeout <= 0:
		return usageErrorf("use --timeout 30s", "--timeout must be positive, not %s", f.timeout)
	case f.maxBytes <= 0:
		return usageErrorf("use --max-bytes 5242880", "--max-bytes must be positive, not %d", f.maxBytes)
	case f.maxLength <= 0 || f.maxLength > fetchargs.MaxMaxLength:
		return usageErrorf("use --max-length 20000", "--max-length must be between 1 and %d, not %d", fetchargs.MaxMaxLength, f.maxLength)
	}
	if a.profileFlag != "" {
		// Checked here, as scope.Open checks it for --root: without
		// --root the server would report it as a refusal (exit 3).
		if _, err := risk.Parse(a.profileFlag); err != nil {
			return scopeError(&scope.FlagError{Flag: "--profile", Err: err})
		}
	}
	if err := a.applyTrustRoot("mcp", f.trustRoot); err != nil {
		return err
	}
	// Only an explicit --root is resolved here (a bad one is a usage
	// error); without it, the server takes the client's first root, else
	// the current directory.
	root := ""
	eopts := &egress.Options{}
	var upstreamFrom scope.Source
	if a.rootDir != "" {
		// settings.json's upstream_proxy is read from --root only.
		sc, err := a.scope(ef.upstreamProxy, true)
		if err != nil {
			return err
		}
		root, upstreamFrom = sc.Workspace.Root, sc.UpstreamFrom
		if err := applyEgress(sc, ef, eopts); err != nil {
			return err
		}
	} else {
		up, err := scope.FlagUpstream(ef.upstreamProxy)
		if err != nil {
			return scopeError(err)
		}
		// The flag's proxy: its --upstream-proxy-auth and
		// --upstream-proxy-exclude apply to it.
		if err := applyEgress(&scope.Scope{Upstream: up, UpstreamFrom: scope.FromFlag}, ef, eopts); err != nil {
			return err
		}
	}
	layers, err := a.policyLayers()
	if err != nil {
		return err
	}
	if a.egressOptions != nil {
		a.egressOptions(eopts)
	}
	backend, err := mcpSearch(a, f)
	if err != nil {
		return err
	}
	opts := &mcpserver.Options{
		Search: backend,
		// a nil *Exporter must not become a non-nil audit.Sink
		AuditSink:    sinkOf(a.auditExporter()),
		Root:         root,
		Profile:      a.profileFlag,
		HTTPAddr:     httpAddr,
		Stdin:        a.stdin,
		Stdout:       a.stdout,
		Logger:       a.log(),
		Version:      plainVersion(),
		Egress:       eopts,
		Layers:       layers,
		UpstreamFrom: upstreamFrom,

		FetchTimeout:     f.timeout,
		MaxBodyBytes:     f.maxBytes,
		DefaultMaxLength: f.maxLength,
		UserAgent:        cmpOrString(f.userAgent, getUserAgent()),
		CacheTTL:         f.cacheTTL,
	}
	if f.cacheTTL <= 0 {
		opts.CacheTTL = -1 // disabled
	}
	if f.respectRobots {
		opts.Robots = robotscheck.New(nil)
	}
	if httpAddr != "" {
		path := f.tokenFile
		if path == "" && a.layers.configDir != "" {
			path = filepath.Join(a.layers.configDir, mcpserver.TokenFileName)
		}
		if path == "" {
			p, err := mcpserver.DefaultTokenPath()
			if err != nil {
				return usageErrorf("name one with --token-file FILE", "%v", err)
			}
			path = p
		}
		token, err := mcpserver.LoadOrCreateToken(path)
		if err != nil {
			// "token file PATH: what", without the library's package prefix.
			return usageErrorf("fix or delete the file, or name another with --token-file FILE", "%s", strings.TrimPrefix(err.Error(), "mcpserver: "))
		}
		opts.BearerToken = token
		opts.SessionTimeout = f.sessionTimeout
		opts.MaxSessions = f.maxSessions
		opts.Ready = func(addr net.Addr) {
			url := fmt.Sprintf("http://%s/", addr)
			fmt.Fprintf(a.stderr, "ocfetch mcp: serving streamable HTTP on %s\n", url)
			fmt.Fprint(a.stderr, mcpClientSnippet(url, path))
		}
	}
	startpages.Release() // a server: its start-up pages go
	err = mcpserver.Serve(ctx, opts)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mcpserver.ErrNotLoopback):
		return usageErrorf("use --http 127.0.0.1:PORT", "%v", err)
	}
	if le := listenError("--http", httpAddr, err); le != nil && httpAddr != "" {
		return le
	}
	e := classify(err)
	if e.reason == "" && a.profileFlag != "" {
		e.code = exitUsage
	}
	return e
}

// mcpClientSnippet tells the user how to connect a client to url with the
// bearer token kept in path. It names the file, never the token itself:
// stderr of a server ends up in journals and CI logs, and the token is a
// credential (the shell reads it from the file in the Claude Code line).
func mcpClientSnippet(url, path string) string {
	q := safetext.ShellQuote(path)
	return fmt.Sprintf(`ocfetch mcp: every request needs "Authorization: Bearer TOKEN"; TOKEN is in %[2]s (readable by you only)
  Claude Code: claude mcp add --transport http ocfetch %[1]s --header "Authorization: Bearer $(cat %[3]s)"
  VS Code (.vscode/mcp.json): {"servers": {"ocfetch": {"type": "http", "url": "%[1]s", "headers": {"Authorization": "Bearer TOKEN"}}}}
`, url, path, q)
}

// cmpOrString is v, or def when v is empty.
func cmpOrString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
