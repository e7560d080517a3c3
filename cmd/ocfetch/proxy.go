package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/proxy"
)

// defaultProxyListen is the conventional HTTP proxy port, on loopback.
const defaultProxyListen = "127.0.0.1:3128"

func newProxyCmd(a *app) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the egress proxy for shell commands until SIGINT or SIGTERM",
		Long: `proxy listens on a loopback address and forwards HTTP CONNECT and
absolute-form HTTP requests that a saved allow rule covers (a proxy cannot
ask, so there are no one-off approvals), through the same egress guard and
local mode as ocfetch get. A refusal is 403 with the header X-Ocfetch-Reason.
Every tunnel or request writes one audit line.`,
		Example: `  ocfetch proxy
  ocfetch proxy --listen 127.0.0.1:0
  HTTPS_PROXY=http://127.0.0.1:3128 curl https://example.com/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxy(cmd.Context(), a, listen)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", defaultProxyListen, "loopback `ADDR` to listen on, 127.0.0.1:PORT (port 0 picks a free one)")
	return cmd
}

// proxyOptions builds the proxy's options for the workspace: rules,
// profile, the guard and the audit log, as get uses them.
func proxyOptions(a *app) (*proxy.Options, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	profile, err := a.profile(ws)
	if err != nil {
		return nil, err
	}
	eopts := &egress.Options{Logger: a.log()}
	if a.egressOptions != nil {
		a.egressOptions(eopts)
	}
	return &proxy.Options{
		Workspace: ws,
		Profile:   profile,
		Guard:     egress.NewGuard(eopts),
		Audit:     audit.Open(ws),
		Logger:    a.log(),
	}, nil
}

func runProxy(ctx context.Context, a *app, listen string) error {
	if err := proxy.CheckListenAddr(listen); err != nil {
		return usageErrorf("use --listen 127.0.0.1:PORT", "%v", err)
	}
	opts, err := proxyOptions(a)
	if err != nil {
		return err
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
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(a.stderr, "ocfetch proxy: listening on %s (workspace %s, profile %s)\n", url, opts.Workspace.Root, opts.Profile)
	fmt.Fprintf(a.stderr, "  export HTTPS_PROXY=%s HTTP_PROXY=%s\n", url, url)

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
