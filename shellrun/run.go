// Package shellrun is `ocfetch run`: it runs a command whose only way to
// the network is the egress proxy. [Run] makes fresh proxy credentials for
// the run, starts a proxy (package proxy) for the workspace's
// scope.Scope that accepts only them, starts the command confined by
// package sandbox with the proxy variables pointing at it ([Env]) and the
// files that decide its network read-only ([PolicyFiles]), forwards
// signals, and returns the command's exit status. The managed policy's
// require_sandbox is checked here, and only here. A front end (the CLI)
// translates its flags into [Options] and nothing else.
//
//	code, err := shellrun.Run(ctx, sc, &shellrun.Options{Audit: audit.Open(sc.Workspace)}, []string{"curl", "https://example.com/"})
//
// Every request of the command is decided by policy.Decide in the proxy,
// the decision order stated once, in docs/DESIGN.md.
package shellrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/scope"
)

// shutdownGrace bounds how long Run waits for the command's last tunnels
// to finish once it has exited.
const shutdownGrace = 2 * time.Second

// Options configure [Run]. The zero value runs the command in the sandbox
// with the process's standard streams, asking nobody, auditing nothing.
type Options struct {
	// Guard dials the run's connections (nil: egress.NewGuard(nil));
	// Audit receives one line per request or tunnel (nil: none); Logger
	// diagnostics (nil: discarded). As in proxy.Options.
	Guard  *egress.Guard
	Audit  *audit.Log
	Logger *slog.Logger
	// RunID is written in every audit line of the run (run_id); "": Run
	// makes one (a random UUID).
	RunID string
	// Approver, when set, is asked about a target no rule covers, the
	// question naming the command ("curl (ocfetch run)"), one at a time
	// (proxy.AskOptions); Warn receives a line when an "always" rule could
	// not be saved or does not count yet. Nil: such a target is refused
	// not_approved.
	Approver broker.Approver
	Warn     io.Writer
	// NoSandbox runs the command without confining its network: only
	// programs that honour the proxy variables use the proxy. Run prints a
	// one-line warning on Stderr, and refuses it (managed_policy_forbids)
	// under the managed policy's require_sandbox.
	NoSandbox bool
	// DenyUnixSockets refuses the sandboxed command Unix domain sockets
	// (sandbox.Options.DenyUnixSockets); Run refuses it with NoSandbox.
	DenyUnixSockets bool
	// Filesystem confines what the sandboxed command may write and read
	// (Linux, macOS). Nil: the workspace and the temporary directory are
	// writable, everything else read-only. Whatever it says,
	// [PolicyFiles] stay read-only and [DenyRead] unreadable.
	Filesystem *sandbox.Filesystem
	// Report: when the command has exited, Run writes on Stderr every
	// host:port the run was refused and the command that allows them
	// ([WriteReport]).
	Report bool
	// Stdin, Stdout and Stderr are the command's streams; nil means the
	// process's own (so a terminal stays the command's terminal). Stderr
	// also receives Run's warning and one line per refusal, concurrently
	// with the command's own writes: a Stderr that is not an *os.File
	// must be safe for concurrent use.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Run runs argv in sc's workspace with the proxy as its only way to the
// network (see the package documentation) and returns its exit status:
// its exit code, or 128+N when signal N killed it. Unless
// opts.NoSandbox, argv runs confined by package sandbox; where that is not
// possible Run returns the *refusal.Error (sandbox_unavailable) that names
// the cause and the fix, without running argv. A malformed managed policy
// refuses the run, as it refuses every call.
//
// Every refusal by policy is printed on opts.Stderr as it happens, one
// line each (proxy.Refusal.Line). Signals received meanwhile are
// forwarded to the command (SIGINT and SIGTERM on Unix; on Windows the
// console delivers Ctrl-C and Ctrl-Break to the command itself);
// cancelling ctx terminates it (SIGTERM, then SIGKILL after 5 seconds).
// The proxy is shut down before Run returns.
//
// err is non-nil when the command could not be run at all or the proxy
// failed; exitCode is then 127 for a command that was not found, 126 for
// one that could not be executed, 3 for a refusal by policy, 2 for
// options that contradict each other, and 1 otherwise.
func Run(ctx context.Context, sc *scope.Scope, opts *Options, argv []string) (exitCode int, err error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	return run(ctx, sc, &o, argv)
}

// lockedWriter serialises the refusal lines of concurrent connections.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p whole under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s+"\n")
}

// run is [Run] once the streams are set. Its messages keep the words
// `ocfetch run` has always printed ("proxy: run …").
func run(ctx context.Context, sc *scope.Scope, o *Options, argv []string) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("shellrun: no command given")
	}
	if sc == nil || sc.Workspace.Root == "" {
		return 1, errors.New("shellrun: a scope (with its workspace) is required")
	}
	if o.NoSandbox && o.DenyUnixSockets {
		return 2, errors.New("shellrun: DenyUnixSockets needs the sandbox; it has no effect with NoSandbox")
	}
	if err := checkSandboxRequired(sc, o.NoSandbox); err != nil {
		return 3, err
	}
	if o.RunID == "" {
		o.RunID = uuid.NewString()
	}
	code, err := serve(ctx, sc, o, argv)
	if o.Report && err == nil {
		report(o.Stderr, sc, o.RunID)
	}
	return code, err
}

// checkSandboxRequired reads the managed policy now: malformed, it
// refuses the run (managed_policy_invalid naming the file); with
// require_sandbox it refuses noSandbox. The one place `ocfetch run` checks
// require_sandbox.
func checkSandboxRequired(sc *scope.Scope, noSandbox bool) error {
	m, err := sc.Layers.LoadManaged()
	if err != nil {
		return err
	}
	if m.RequireSandbox && noSandbox {
		return refusal.Newf(refusal.ManagedPolicyForbids,
			"the managed policy %s requires the sandbox (require_sandbox): --no-sandbox is not allowed", m.File).
			WithHint("run without --no-sandbox; `ocfetch explain URL` shows the layers")
	}
	return nil
}

// serve starts the run's proxy and the command, and waits for the command.
func serve(ctx context.Context, sc *scope.Scope, o *Options, argv []string) (int, error) {
	creds, err := proxy.NewCredentials()
	if err != nil {
		return 1, err
	}
	stderr := &lockedWriter{w: o.Stderr}
	po := &proxy.Options{
		Scope:   sc,
		Guard:   o.Guard,
		Audit:   o.Audit,
		Logger:  o.Logger,
		Auth:    &creds,
		RunID:   o.RunID,
		Refused: func(r proxy.Refusal) { stderr.line(r.Line()) },
	}
	if o.Approver != nil {
		po.Ask = &proxy.AskOptions{Approver: o.Approver, Command: filepath.Base(argv[0]) + " (ocfetch run)", Warn: o.Warn}
	}
	s, err := proxy.New(po)
	if err != nil {
		return 1, err
	}
	log := diag.For(o.Logger, diag.DomainProxy)

	// Catch the signals before the child exists, so none is lost between
	// Start and the loop below; until the child runs they are only
	// recorded.
	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	defer signal.Stop(sigs)
	c, ln, err := startCommand(ctx, sc, o, log, argv, &creds, stderr)
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled while the command was starting (Ctrl-C, SIGTERM
			// of ocfetch): report it as the command ended by SIGTERM would
			// be, not as a sandbox that does not work.
			return 128 + 15, fmt.Errorf("proxy: run %s: cancelled before it started: %w", argv[0], ctx.Err())
		}
		if r, ok := refusal.As(err); ok {
			return 3, r
		}
		return startFailure(err), fmt.Errorf("proxy: run %s: %w", argv[0], err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- s.Serve(ln) }()
	var proxyErr error // set when the proxy stopped on its own
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		s.Shutdown(sctx)
		if serveErr != nil {
			<-serveErr
		}
	}()
	log.Info("running command through the proxy", "proxy", ln.Addr().String(), "pid", c.Process.Pid, "sandbox", !o.NoSandbox)

	waitErr := make(chan error, 1)
	go func() { waitErr <- c.Wait() }()
	for {
		select {
		case sig := <-sigs:
			// The child usually shares the terminal's process group and
			// gets a terminal's ^C itself too; a signal sent to this
			// process alone (kill, a supervisor) reaches it only this way.
			forwardSignal(c.Process, sig)
		case err := <-serveErr:
			// The proxy stopped under the child: end the child rather
			// than let it run without network, and say why.
			serveErr = nil
			proxyErr = err
			terminate(c.Process)
		case err := <-waitErr:
			code, err := exitStatus(c, err)
			if err == nil && proxyErr != nil {
				err = fmt.Errorf("proxy: stopped while the command ran: %w", proxyErr)
			}
			return code, err
		}
	}
}

// startCommand starts argv, confined unless o.NoSandbox, and returns the
// listener the proxy serves it on.
func startCommand(ctx context.Context, sc *scope.Scope, o *Options, log *slog.Logger, argv []string, creds *proxy.Credentials, stderr *lockedWriter) (*exec.Cmd, net.Listener, error) {
	prepare := func(c *exec.Cmd) {
		c.Stdin, c.Stdout, c.Stderr = o.Stdin, o.Stdout, o.Stderr
		if _, ok := o.Stderr.(*os.File); !ok && o.Stderr != nil {
			// A writer that is not a file is copied to by exec's own
			// goroutine: through the lock, so a refusal line and the
			// command's output never write into it at once.
			c.Stderr = stderr
		}
		c.Cancel = func() error { return terminate(c.Process) }
		c.WaitDelay = 5 * time.Second
	}
	if o.NoSandbox {
		stderr.line("ocfetch: warning: --no-sandbox: " + argv[0] + "'s network is not confined; only programs that honour the proxy variables use the proxy")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
		}
		c := exec.CommandContext(ctx, argv[0], argv[1:]...)
		c.Env = Env(os.Environ(), ln.Addr().(*net.TCPAddr).AddrPort(), creds)
		prepare(c)
		if err := c.Start(); err != nil {
			ln.Close()
			return nil, nil, err
		}
		return c, ln, nil
	}
	cmd, err := sandbox.Command(ctx, argv, envFunc(creds), &sandbox.Options{Workspace: sc.Workspace.Root, DenyUnixSockets: o.DenyUnixSockets})
	if err != nil {
		return nil, nil, err
	}
	if cmd.Filesystem, err = Confinement(sc, o.Audit, o.Filesystem); err != nil {
		return nil, nil, err
	}
	prepare(cmd.Cmd)
	ln, err := cmd.Start()
	if err != nil {
		return nil, nil, err
	}
	if conf := cmd.Confinement(); conf != "" {
		log.Info("sandbox filesystem", "confinement", conf, "writable", strings.Join(cmd.Filesystem.Writable, ","), "write_anywhere", cmd.Filesystem.WriteAnywhere)
	}
	return cmd.Cmd, ln, nil
}

// exitStatus maps the result of Wait to the exit status a shell reports.
func exitStatus(c *exec.Cmd, err error) (int, error) {
	if c.ProcessState == nil {
		return 1, fmt.Errorf("proxy: run: %w", err)
	}
	if n, ok := signalStatus(c.ProcessState); ok {
		return 128 + n, nil
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		// The child exited but its output could not be copied (WaitDelay
		// expired): report its status, and the error.
		return c.ProcessState.ExitCode(), fmt.Errorf("proxy: run: %w", err)
	}
	return c.ProcessState.ExitCode(), nil
}

func startFailure(err error) int {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return 127
	case errors.Is(err, os.ErrPermission):
		return 126
	}
	return 1
}
