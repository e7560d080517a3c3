package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/shellrun"
)

func newRunCmd(a *app) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [--root DIR] [--no-sandbox] [--no-ask] [--report] [--allow-write PATH]... [--deny-read PATH]... [--deny-unix-sockets] [--explain] -- COMMAND [ARG...]",
		Short: "Run a command whose only way to the network is the egress proxy",
		Long: `run starts the egress proxy, runs COMMAND with HTTP_PROXY and HTTPS_PROXY
(http://) and ALL_PROXY (socks5h://), both cases, pointing at it with
credentials made for this run, and exits with COMMAND's status. Only targets
covered by a saved allow rule get through; the rest are refused (403 with
X-Ocfetch-Reason, or the SOCKS5 failure), and each refusal is printed on
stderr as it happens.

COMMAND runs in a sandbox whose only route out is the proxy: on Linux a new
network namespace (and user namespace when not root), on macOS sandbox-exec.
A program that ignores the proxy variables gets "network unreachable". Where
no sandbox is possible, run refuses with sandbox_unavailable and says why;
--no-sandbox then runs COMMAND as before, its network only advised to use
the proxy.

On Linux COMMAND also runs as an ordinary user (as root: the user who ran
sudo, else the workspace's owner, else uid 2147483646; a workspace that
user cannot use is refused) with its own host name, no descriptor but
stdin, stdout and stderr, and sockets of the families AF_INET, AF_INET6,
AF_UNIX and AF_NETLINK (route) only; --deny-unix-sockets refuses it Unix
sockets too (Docker's, an SSH agent's), on macOS connecting to them.

The sandbox also confines the filesystem (Linux and macOS). COMMAND may
write only in the workspace, the system temporary directory and the paths
given with --allow-write; everything else is read-only. It may read
everything except ~/.ssh, ~/.gnupg, ocfetch's proxy credentials and MCP
token, the upstream proxy's credentials file (--upstream-proxy-auth,
settings.json's upstream_proxy_auth_file), the workspace's trust marker,
and the paths given with --deny-read. Whatever the flags say, the
files that decide or record COMMAND's network stay read-only inside —
the workspace's .oc_chat/ (rules, allowlist, settings, audit log), your
ocfetch configuration directory (trust store, your rules), the managed
policy — and so do, inside a writable root, the files that a program
outside will later run or obey (.git/hooks, .git/config, shell start-up
files, .vscode, .mcp.json, …) and, on Linux, /proc/sys. ocfetch run inside
the sandbox says that rules cannot be changed from in there
(policy_read_only). On Linux, Landlock enforces the write allow-list where
the kernel has it, a mount namespace the rest; --explain prints the plan
and the mechanism without running COMMAND. --allow-write / lifts the write
allow-list (the protected files stay read-only).

When run has a controlling terminal (/dev/tty), a target no rule covers is
not refused at once: the request waits while you are asked on that
terminal, naming the command — allow once (this request), for this session
(until run exits), always (saves the rule in .oc_chat/rules.json), or deny.
Questions come one at a time. Without a terminal (a CI job, an agent's
shell), or with --no-ask, such a target is refused as before. Profile
strict, and a managed policy's managed_rules_only or allow_once false,
refuse without asking. A COMMAND that reads the terminal itself competes
for your answer: give it --no-ask.

Every audit line of a run carries its run id (run_id). --report prints, when
COMMAND exits, every host:port the run was refused (how often, when first,
why) and the one command that allows them all:
ocfetch rules allow --from-run RUN_ID.`,
		Example: `  ocfetch rules allow example.com
  ocfetch run -- curl -sS https://example.com/
  ocfetch run --allow-write ~/go/pkg/mod -- go mod download
  ocfetch run --deny-read ~/.aws -- ./configure
  ocfetch run --explain -- make
  ocfetch run --deny-unix-sockets -- npm install
  ocfetch run --no-sandbox -- npm install
  ocfetch run --report --no-ask -- npm install   # then: ocfetch rules allow --from-run RUN_ID`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf(helpHint(cmd), "missing COMMAND")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.noSandbox && f.denyUnix {
				return usageErrorf("drop --deny-unix-sockets, or --no-sandbox", "--deny-unix-sockets needs the sandbox; it has no effect with --no-sandbox")
			}
			return runRun(cmd.Context(), a, f, args)
		},
	}
	cmd.Flags().BoolVar(&f.noSandbox, "no-sandbox", false, "run COMMAND without confining its network (only the proxy variables point it at the proxy)")
	cmd.Flags().StringArrayVar(&f.allowWrite, "allow-write", nil, "let COMMAND write under `PATH` too (Linux, macOS; repeatable; / lifts the write allow-list)")
	cmd.Flags().StringArrayVar(&f.denyRead, "deny-read", nil, "keep COMMAND from reading `PATH` (Linux, macOS; repeatable)")
	cmd.Flags().BoolVar(&f.denyUnix, "deny-unix-sockets", false, "refuse COMMAND creating Unix domain sockets too, so it cannot reach a host daemon through one (Linux: socket(AF_UNIX) fails with EPERM; macOS: connecting is denied)")
	cmd.Flags().BoolVar(&f.explain, "explain", false, "print the sandbox's confinement plan and exit without running COMMAND")
	cmd.Flags().BoolVar(&f.noAsk, "no-ask", false, "never ask on the terminal: refuse every target no rule covers")
	addEgressFlags(cmd, &f.egress)
	cmd.Flags().BoolVar(&f.report, "report", false, "when COMMAND exits, print every refused host:port (count, first time, reason) and the command that allows them all")
	// Everything after COMMAND belongs to it, flags included.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// runRun translates run's flags into shellrun.Options and exits with the
// command's status. SIGINT and SIGTERM go to the command (shellrun.Run
// forwards them), not to this process's context, so the command decides
// how to stop.
func runRun(ctx context.Context, a *app, f runFlags, args []string) error {
	fsys, err := f.filesystem(a)
	if err != nil {
		return err
	}
	if f.noSandbox && (len(f.allowWrite) > 0 || len(f.denyRead) > 0) {
		return usageErrorf("drop --no-sandbox, or the filesystem flags", "--allow-write and --deny-read confine the sandbox, and --no-sandbox runs without one")
	}
	po, err := proxyOptions(a, f.egress)
	if err != nil {
		return err
	}
	o := &shellrun.Options{
		Guard: po.Guard, Audit: po.Audit, Logger: po.Logger,
		NoSandbox: f.noSandbox, DenyUnixSockets: f.denyUnix, Filesystem: fsys, Report: f.report,
		Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr,
	}
	if f.explain {
		if err := shellrun.Explain(a.stdout, po.Scope, o); err != nil {
			return classify(err)
		}
		return nil
	}
	if !f.noAsk {
		if tty, ok := a.controllingTerminal(); ok {
			defer tty.Close()
			o.Approver = &broker.TerminalApprover{In: tty, Out: tty, RulesFile: po.Scope.Workspace.RulesPath(), OfferSession: true}
			o.Warn = tty
		}
	}
	code, err := shellrun.Run(context.WithoutCancel(ctx), po.Scope, o, args)
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
