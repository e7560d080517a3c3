package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/proxy"
)

func newRunCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [--root DIR] -- COMMAND [ARG...]",
		Short: "Run a command with its HTTP(S) traffic through the egress proxy",
		Long: `run starts the egress proxy on a free loopback port, runs COMMAND with
HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (both cases) pointing at it, and exits
with COMMAND's status. Only targets covered by a saved allow rule get through;
the rest are refused with 403 and X-Ocfetch-Reason.`,
		Example: `  ocfetch rules allow example.com
  ocfetch run -- curl -sS https://example.com/
  ocfetch run -- go mod download`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf(helpHint(cmd), "missing COMMAND")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd.Context(), a, args)
		},
	}
	// Everything after COMMAND belongs to it, flags included.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// runRun runs the command and exits with its status. SIGINT and SIGTERM go
// to the command (proxy.Run forwards them), not to this process's context,
// so the command decides how to stop.
func runRun(ctx context.Context, a *app, args []string) error {
	opts, err := proxyOptions(a)
	if err != nil {
		return err
	}
	code, err := proxy.Run(context.WithoutCancel(ctx), opts, args)
	if err != nil {
		return &exitError{code: code, msg: err.Error(), err: err}
	}
	if code != 0 {
		return &exitError{code: code, quiet: true}
	}
	return nil
}
