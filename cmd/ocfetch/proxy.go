package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/safetext"
)

// defaultProxyListen is the conventional HTTP proxy port, on loopback.
const defaultProxyListen = "127.0.0.1:3128"

func newProxyCmd(a *app) *cobra.Command {
	var listen, auth, authFile string
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
  HTTPS_PROXY="http://$(cat ~/.config/ocfetch/proxy-credentials)@127.0.0.1:3128" curl https://example.com/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxy(cmd.Context(), a, listen, auth, authFile, ef)
		},
	}
	addEgressFlags(cmd, &ef)
	cmd.Flags().StringVar(&listen, "listen", defaultProxyListen, "loopback `ADDR` to listen on, 127.0.0.1:PORT (port 0 picks a free one)")
	cmd.Flags().StringVar(&auth, "auth", "file", "`MODE` of client authentication: file (credentials from --auth-file) or none")
	cmd.Flags().StringVar(&authFile, "auth-file", "", "credentials `FILE` (user:password), created mode 0600 if missing (default: ocfetch/proxy-credentials in the user configuration directory)")
	return cmd
}

// proxyOptions builds the proxy's options for the workspace: rules,
// profile, the guard and the audit log, as get uses them.
func proxyOptions(a *app, ef egressFlags) (*proxy.Options, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	profile, err := a.profile(ws)
	if err != nil {
		return nil, err
	}
	layers, err := a.policyLayers()
	if err != nil {
		return nil, err
	}
	eopts := &egress.Options{Logger: a.log()}
	// The operator's upstream proxy, as get and mcp use it: the target is
	// decided and resolved first, and the guard asks the upstream proxy
	// for a CONNECT to the checked address only.
	wsUpstream, err := applyEgress(&ws, ef, eopts)
	if err != nil {
		return nil, err
	}
	if a.egressOptions != nil {
		a.egressOptions(eopts)
	}
	return &proxy.Options{
		Workspace:         ws,
		Profile:           profile,
		ProfileExplicit:   a.profileFlag != "",
		Layers:            layers,
		Guard:             egress.NewGuard(eopts),
		Audit:             audit.Open(ws),
		Logger:            a.log(),
		WorkspaceUpstream: wsUpstream,
	}, nil
}

func runProxy(ctx context.Context, a *app, listen, auth, authFile string, ef egressFlags) error {
	if err := checkListenFlag("--listen", listen); err != nil {
		return err
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
		if authFile == "" && a.layers.configDir != "" {
			authFile = filepath.Join(a.layers.configDir, "proxy-credentials")
		} else if authFile == "" {
			if authFile, err = proxy.DefaultCredentialsFile(); err != nil {
				return internalErrorf("%v", err)
			}
		}
		creds, created, err := proxy.LoadOrCreateCredentials(authFile)
		if err != nil {
			return &exitError{code: exitInternal, msg: err.Error(), hint: "fix or remove the file; ocfetch proxy creates a new one", err: err}
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
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		if le := listenError("--listen", listen, err); le != nil {
			return le
		}
		return internalErrorf("cannot listen on %s: %v", listen, err)
	}
	addr := ln.Addr().String()
	fmt.Fprintf(a.stderr, "ocfetch proxy: listening on %s, HTTP and SOCKS5 (workspace %s, profile %s)\n", addr, opts.Workspace.Root, opts.Profile)
	if opts.Auth == nil {
		fmt.Fprintln(a.stderr, "ocfetch proxy: warning: --auth none: every user of this machine can use this proxy under your rules")
		fmt.Fprintf(a.stderr, "  export HTTPS_PROXY=http://%s HTTP_PROXY=http://%s ALL_PROXY=socks5h://%s\n", addr, addr, addr)
	} else {
		// The password stays in its file: the hint reads it from there.
		cred := `$(cat ` + safetext.ShellQuote(authFile) + `)`
		fmt.Fprintf(a.stderr, "  export HTTPS_PROXY=\"http://%s@%s\" HTTP_PROXY=\"http://%s@%s\" ALL_PROXY=\"socks5h://%s@%s\"\n", cred, addr, cred, addr, cred, addr)
	}

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
