package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/net/netutil"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/internal/startpages"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/safetext"
)

// defaultProxyListen is the conventional HTTP proxy port, on loopback.
const defaultProxyListen = "127.0.0.1:3128"

func newProxyCmd(a *app) *cobra.Command {
	var listen, auth, authFile, metricsAddr, trustRoot string
	var ef egressFlags
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the egress proxy for shell commands until SIGINT or SIGTERM",
		Long: `proxy listens on a loopback address and forwards HTTP CONNECT and
absolute-form HTTP requests that a saved allow rule covers (a proxy cannot
ask, so there are no one-off approvals), through the same egress guard and
local mode as ocfetch get, and SOCKS5 (CONNECT) on the same port. A
refusal is 403 with the header X-Ocfetch-Reason (or the SOCKS5 failure).
Every tunnel or request writes one audit line.

Clients must present the proxy's credentials (Proxy-Authorization: Basic,
or SOCKS5 username/password), kept in a file only you can read: another
user of this machine cannot use your rules. The file is created (mode 0600)
on first use; --auth none serves every local client without credentials.`,
		Example: `  ocfetch proxy
  ocfetch proxy --listen 127.0.0.1:0
  ocfetch proxy --trust-root /work   # in a container, the workspace mounted at /work
  HTTPS_PROXY="http://$(cat ~/.config/ocfetch/proxy-credentials)@127.0.0.1:3128" curl https://example.com/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.applyTrustRoot("proxy", trustRoot); err != nil {
				return err
			}
			return runProxy(cmd.Context(), a, listen, auth, authFile, metricsAddr, ef)
		},
	}
	addEgressFlags(cmd, &ef)
	addTrustRootFlag(cmd, &trustRoot)
	cmd.Flags().StringVar(&listen, "listen", defaultProxyListen, "loopback `ADDR` to listen on, 127.0.0.1:PORT (port 0 picks a free one)")
	cmd.Flags().StringVar(&auth, "auth", "file", "`MODE` of client authentication: file (credentials from --auth-file) or none")
	cmd.Flags().StringVar(&authFile, "auth-file", "", "credentials `FILE` (user:password), created mode 0600 if missing (default: ocfetch/proxy-credentials in the user configuration directory)")
	cmd.Flags().StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics, a loopback 127.0.0.1:PORT, behind the proxy's credentials (Authorization: Basic)")
	return cmd
}

// proxyOptions builds the proxy's options for the workspace: rules,
// profile, the guard and the audit log, as get uses them.
func proxyOptions(a *app, ef egressFlags) (*proxy.Options, error) {
	// The operator's upstream proxy, as get and mcp use it (the flag, else
	// settings.json's, a workspace grant): the target is decided and
	// resolved first, and the guard asks the upstream proxy for a CONNECT
	// to the checked address only.
	sc, err := a.scope(ef.upstreamProxy, true)
	if err != nil {
		return nil, err
	}
	eopts, err := a.egressFor(sc, ef, 0, a.log())
	if err != nil {
		return nil, err
	}
	return &proxy.Options{
		Scope:  sc,
		Guard:  egress.NewGuard(eopts),
		Audit:  a.auditLog(sc.Workspace),
		Logger: a.log(),
	}, nil
}

func runProxy(ctx context.Context, a *app, listen, auth, authFile, metricsAddr string, ef egressFlags) error {
	if err := checkListenFlag("--listen", listen); err != nil {
		return err
	}
	if metricsAddr != "" {
		if err := checkListenFlag("--metrics", metricsAddr); err != nil {
			return err
		}
	}
	if auth != "file" && auth != "none" {
		return usageErrorf("use --auth file or --auth none", "--auth %s: want file or none", safetext.ShellQuote(auth))
	}
	if auth == "none" && authFile != "" {
		return usageErrorf("drop --auth-file, or --auth none", "--auth-file has no use with --auth none")
	}
	opts, err := proxyOptions(a, ef)
	if err != nil {
		return err
	}
	if auth == "file" {
		named := authFile != "" // by --auth-file
		if authFile == "" && a.layers.configDir != "" {
			authFile = filepath.Join(a.layers.configDir, "proxy-credentials")
		} else if authFile == "" {
			if authFile, err = proxy.DefaultCredentialsFile(); err != nil {
				return internalErrorf("%v", err)
			}
		}
		creds, created, err := proxy.LoadOrCreateCredentials(authFile)
		if err != nil {
			return credentialsFileError(authFile, named, err)
		}
		opts.Auth = &creds
		if created {
			fmt.Fprintf(a.stderr, "ocfetch proxy: created the credentials file %s (mode 0600)\n", authFile)
		}
	}
	s, err := proxy.New(opts)
	if err != nil {
		return internalErrorf("%v", err)
	}
	ln, err := loopback.Listen(ctx, listen)
	if err != nil {
		if le := listenError("--listen", listen, err); le != nil {
			return le
		}
		return internalErrorf("cannot listen on %s: %v", listen, err)
	}
	addr := ln.Addr().String()
	fmt.Fprintf(a.stderr, "ocfetch proxy: listening on %s, HTTP and SOCKS5 (workspace %s, profile %s)\n", addr, opts.Scope.Workspace.Root, opts.Scope.Profile)
	if opts.Auth == nil {
		fmt.Fprintln(a.stderr, "ocfetch proxy: warning: --auth none: every user of this machine can use this proxy under your rules")
		fmt.Fprintln(a.stderr, proxyEnvHint(runtime.GOOS, "", addr))
	} else {
		fmt.Fprintln(a.stderr, proxyEnvHint(runtime.GOOS, authFile, addr))
	}

	stopMetrics, err := serveMetrics(a, s, metricsAddr, opts.Auth != nil)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()

	startpages.Release() // a server: its start-up pages go
	a.tuneProxyGC()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, proxy.ErrServerClosed) {
			return nil
		}
		return internalErrorf("%v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	s.Shutdown(sctx)
	<-errc
	fmt.Fprintln(a.stderr, "ocfetch proxy: stopped")
	return nil
}

// credentialsFileError reports a credentials file the proxy could not
// read or create, naming the file and never its content: a usage error
// (exit 2) naming --auth-file when that flag named it, else exit 1.
func credentialsFileError(path string, named bool, err error) *exitError {
	what := err.Error()
	switch {
	case errors.Is(err, proxy.ErrBadCredentials):
		what = path + ": does not hold one line user:password"
	case errors.Unwrap(err) != nil:
		what = errors.Unwrap(err).Error() // "PATH: what", without the package's prefix
	}
	e := &exitError{code: exitInternal, msg: "credentials file " + what, hint: "fix or remove the file; ocfetch proxy creates a new one", err: err}
	if named {
		e.code, e.msg = exitUsage, "--auth-file: "+e.msg
	}
	return e
}

// proxyGCPercent is the garbage collector's target (GOGC) of `ocfetch
// proxy` when the environment sets none. The proxy's live heap is small
// (about 1.5 MB with 32 tunnels opening at once, most of it start-up
// data), so what its heap grows to between collections is the runtime's
// floor for the heap goal, 4 MB × GOGC/100: 50 halves that floor, for
// about a tenth more of the proxy's CPU per request (docs/PERFORMANCE.md,
// bench/proxy). A GOGC the user sets wins.
const proxyGCPercent = 50

// tuneProxyGC sets proxyGCPercent unless GOGC is set.
func (a *app) tuneProxyGC() {
	if a.getenv("GOGC") == "" {
		debug.SetGCPercent(proxyGCPercent)
	}
}

// serveMetrics serves the proxy's /metrics on the loopback addr (none when
// addr is ""), until the returned stop is called; authenticated says
// whether s asks its clients for credentials (not under --auth none).
func serveMetrics(a *app, s *proxy.Server, addr string, authenticated bool) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := loopback.Listen(context.Background(), addr)
	if err != nil {
		if le := listenError("--metrics", addr, err); le != nil {
			return nil, le
		}
		return nil, internalErrorf("cannot listen on %s: %v", addr, err)
	}
	return serveMetricsOn(a, s, ln, authenticated), nil
}

// maxMetricsConns bounds the connections the metrics listener holds open
// at once. Any local user can connect before the credentials are checked:
// past the bound a new connection waits in the listen backlog until one
// closes, so connections cannot take the proxy's file descriptors (as the
// proxy's own listener and the MCP server's are bounded). A scraper needs
// one.
const maxMetricsConns = 16

// serveMetricsOn serves the proxy's /metrics on ln until the returned stop
// is called. The line it prints says who may scrape: the holders of the
// proxy's credentials, or, when s asks for none (--auth none), every user
// of this machine.
func serveMetricsOn(a *app, s *proxy.Server, ln net.Listener, authenticated bool) (stop func()) {
	hs := &http.Server{Handler: s.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	done := make(chan struct{})
	addr := ln.Addr()
	ln = netutil.LimitListener(ln, maxMetricsConns)
	go func() { defer close(done); hs.Serve(ln) }()
	who := "the proxy's credentials as Basic auth"
	if !authenticated {
		who = "open to every user of this machine (--auth none)"
	}
	fmt.Fprintf(a.stderr, "ocfetch proxy: metrics on http://%s/metrics (Prometheus text format; %s)\n", addr, who)
	return func() { hs.Close(); <-done }
}

// proxyEnvHint is the line that sets the proxy variables for a client of
// the proxy at addr, reading the credentials from authFile ("" when
// there are none). The password stays in its file: the line reads it
// from there. POSIX shells get export; Windows, where export does not
// exist, PowerShell's $env: (its cat is Get-Content, and single quotes
// are literal in both).
func proxyEnvHint(goos, authFile, addr string) string {
	cred := ""
	if authFile != "" {
		cred = `$(cat ` + safetext.ShellQuote(authFile) + `)@`
	}
	if goos == "windows" {
		return fmt.Sprintf(`  $env:HTTPS_PROXY="http://%s%s"; $env:HTTP_PROXY="http://%s%s"; $env:ALL_PROXY="socks5h://%s%s"   # PowerShell`, cred, addr, cred, addr, cred, addr)
	}
	if cred == "" {
		return fmt.Sprintf("  export HTTPS_PROXY=http://%s HTTP_PROXY=http://%s ALL_PROXY=socks5h://%s", addr, addr, addr)
	}
	return fmt.Sprintf(`  export HTTPS_PROXY="http://%s%s" HTTP_PROXY="http://%s%s" ALL_PROXY="socks5h://%s%s"`, cred, addr, cred, addr, cred, addr)
}
