package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/refusal"
)

func newRunCmd(a *app) *cobra.Command {
	var noSandbox, denyUnix bool
	cmd := &cobra.Command{
		Use:   "run [--root DIR] [--no-sandbox | --deny-unix-sockets] -- COMMAND [ARG...]",
		Short: "Run a command whose only way to the network is the egress proxy",
		Long: `run starts the egress proxy, runs COMMAND with HTTP_PROXY and HTTPS_PROXY
(http://) and ALL_PROXY (socks5h://), both cases, pointing at it with
credentials made for this run, and exits with COMMAND's status. Only targets
covered by a saved allow rule get through; the rest are refused (403 with
X-Ocfetch-Reason, or the SOCKS5 failure), and each refusal is printed on
stderr as it happens.

COMMAND runs in a sandbox whose only route out is the proxy: on Linux a new
network namespace (and user namespace when not root), on macOS sandbox-exec.
A program that ignores the proxy variables gets "network unreachable". On
Linux COMMAND also runs as an ordinary user (as root: the user who ran sudo,
else the workspace's owner, else uid 2147483646) with its own host name, no
descriptor but stdin, stdout and stderr, and sockets of the families
AF_INET, AF_INET6, AF_UNIX and AF_NETLINK (route) only; --deny-unix-sockets
refuses it Unix sockets too (Docker's, an SSH agent's). Where no sandbox is
possible, run refuses with sandbox_unavailable and says why; --no-sandbox
then runs COMMAND as before, its network only advised to use the proxy.`,
		Example: `  ocfetch rules allow example.com
  ocfetch run -- curl -sS https://example.com/
  ocfetch run -- go mod download
  ocfetch run --deny-unix-sockets -- npm install
  ocfetch run --no-sandbox -- npm install`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf(helpHint(cmd), "missing COMMAND")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if noSandbox && denyUnix {
				return usageErrorf("drop --deny-unix-sockets, or --no-sandbox", "--deny-unix-sockets needs the sandbox; it has no effect with --no-sandbox")
			}
			return runRun(cmd.Context(), a, noSandbox, denyUnix, args)
		},
	}
	cmd.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run COMMAND without confining its network (only the proxy variables point it at the proxy)")
	cmd.Flags().BoolVar(&denyUnix, "deny-unix-sockets", false, "refuse COMMAND creating Unix domain sockets too, so it cannot reach a host daemon through one (Linux: socket(AF_UNIX) fails with EPERM; macOS: connecting is denied)")
	// Everything after COMMAND belongs to it, flags included.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// runRun runs the command and exits with its status. SIGINT and SIGTERM go
// to the command (proxy.Run forwards them), not to this process's context,
// so the command decides how to stop.
func runRun(ctx context.Context, a *app, noSandbox, denyUnix bool, args []string) error {
	opts, err := proxyOptions(a)
	if err != nil {
		return err
	}
	// The managed policy's require_sandbox forbids --no-sandbox; a
	// malformed policy refuses the run as it refuses every call.
	m, err := a.managedPolicy()
	if err != nil {
		return err
	}
	if m.RequireSandbox {
		a.requireSandbox = true
	}
	if a.requireSandbox && noSandbox {
		return refusalError(refusal.Newf(refusal.ManagedPolicyForbids,
			"the managed policy %s requires the sandbox (require_sandbox): --no-sandbox is not allowed", m.File).
			WithHint("run without --no-sandbox; `ocfetch explain URL` shows the layers"))
	}
	ro := &proxy.RunOptions{
		NoSandbox:       noSandbox,
		SandboxRequired: a.requireSandbox,
		DenyUnixSockets: denyUnix,
		Stdin:           a.stdin,
		Stdout:          a.stdout,
		Stderr:          a.stderr,
	}
	code, err := proxy.Run(context.WithoutCancel(ctx), opts, ro, args)
	if r, ok := refusal.As(err); ok {
		return refusalError(r)
	}
	if err != nil {
		return &exitError{code: code, msg: err.Error(), err: err}
	}
	if code != 0 {
		return &exitError{code: code, quiet: true}
	}
	return nil
}
