package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/sandbox"
)

// ProxyEnv lists the variables [Run] sets, in both cases: HTTP_PROXY and
// HTTPS_PROXY to the proxy's http:// URL, ALL_PROXY to its socks5h:// URL.
var ProxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// shutdownGrace bounds how long Run waits for the child's last tunnels to
// finish once the child has exited.
const shutdownGrace = 2 * time.Second

// RunOptions configure [Run] beyond the proxy's [Options]. The zero value
// runs the command in the sandbox with the process's standard streams.
type RunOptions struct {
	// NoSandbox runs the command without confining its network (as
	// ocfetch run did before the sandbox): only programs that honour the
	// proxy variables go through the proxy. Run prints a one-line warning
	// on Stderr.
	NoSandbox bool
	// SandboxRequired refuses NoSandbox with managed_policy_forbids: the
	// managed policy's require_sandbox.
	SandboxRequired bool
	// DenyUnixSockets refuses the sandboxed command creating Unix domain
	// sockets (sandbox.Options.DenyUnixSockets); it has no meaning with
	// NoSandbox, and Run refuses the two together.
	DenyUnixSockets bool
	// Stdin, Stdout and Stderr are the command's streams; nil means the
	// process's own (so a terminal stays the command's terminal). Stderr
	// also receives Run's warning and one line per refusal, concurrently
	// with the command's own writes: a Stderr that is not an *os.File
	// must be safe for concurrent use.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Filesystem confines what the sandboxed command may write and read
	// (Linux, macOS); [PolicyFiles] are added to its Protected paths
	// whatever it says. Nil: the workspace and the temporary directory
	// are writable, everything is readable.
	Filesystem *sandbox.Filesystem
}

// Run starts a proxy for opts that accepts only fresh random credentials,
// runs cmd with [Env] pointing every client at it with those credentials
// (HTTP_PROXY, HTTPS_PROXY as http://, ALL_PROXY as socks5h://), and
// returns cmd's exit status: its exit code, or 128+N when signal N killed
// it. Unless ro.NoSandbox, cmd runs confined by package sandbox, so the
// proxy is its only way to the network; where that is not possible Run
// returns the *refusal.Error (sandbox_unavailable) that names the cause
// and the fix, without running cmd.
//
// Every refusal by policy is printed on ro.Stderr as it happens, one line
// each ([Refusal.Line]). Signals received meanwhile are forwarded to cmd
// (SIGINT and SIGTERM on Unix; on Windows the console delivers Ctrl-C and
// Ctrl-Break to cmd itself); cancelling ctx terminates cmd (SIGTERM, then
// SIGKILL after 5 seconds). The proxy is shut down before Run returns.
//
// err is non-nil when cmd could not be run at all or the proxy failed;
// exitCode is then 127 for a command that was not found, 126 for one that
// could not be executed, 3 for a refusal by policy, and 1 otherwise.
func Run(ctx context.Context, opts *Options, ro *RunOptions, cmd []string) (exitCode int, err error) {
	if ro == nil {
		ro = &RunOptions{}
	}
	r := *ro
	if r.Stdin == nil {
		r.Stdin = os.Stdin
	}
	if r.Stdout == nil {
		r.Stdout = os.Stdout
	}
	if r.Stderr == nil {
		r.Stderr = os.Stderr
	}
	return run(ctx, opts, &r, cmd)
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

func run(ctx context.Context, opts *Options, ro *RunOptions, cmd []string) (int, error) {
	if len(cmd) == 0 {
		return 2, errors.New("proxy: run: no command given")
	}
	if ro.NoSandbox && ro.DenyUnixSockets {
		return 2, errors.New("proxy: run: DenyUnixSockets needs the sandbox; it has no effect with NoSandbox")
	}
	if ro.NoSandbox && ro.SandboxRequired {
		return 3, refusal.New(refusal.ManagedPolicyForbids, "the managed policy requires the sandbox; --no-sandbox is not allowed").
			WithHint("run without --no-sandbox")
	}
	creds, err := NewCredentials()
	if err != nil {
		return 1, err
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Auth = &creds
	stderr := &lockedWriter{w: ro.Stderr}
	next := o.Refused
	o.Refused = func(r Refusal) {
		stderr.line(r.Line())
		if next != nil {
			next(r)
		}
	}
	s, err := New(&o)
	if err != nil {
		return 1, err
	}

	// Catch the signals before the child exists, so none is lost between
	// Start and the loop below; until the child runs they are only
	// recorded.
	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	defer signal.Stop(sigs)
	c, ln, err := startCommand(ctx, &o, s.log, ro, cmd, &creds, stderr)
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled while the command was starting (Ctrl-C, SIGTERM
			// of ocfetch): report it as the command ended by SIGTERM would
			// be, not as a sandbox that does not work.
			return 128 + 15, fmt.Errorf("proxy: run %s: cancelled before it started: %w", cmd[0], ctx.Err())
		}
		if r, ok := refusal.As(err); ok {
			return 3, r
		}
		return startFailure(err), fmt.Errorf("proxy: run %s: %w", cmd[0], err)
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
	s.log.Info("running command through the proxy", "proxy", ln.Addr().String(), "pid", c.Process.Pid, "sandbox", !ro.NoSandbox)

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

// startCommand starts cmd, confined unless ro.NoSandbox, and returns the
// listener the proxy serves it on.
func startCommand(ctx context.Context, opts *Options, log *slog.Logger, ro *RunOptions, cmd []string, creds *Credentials, stderr *lockedWriter) (*exec.Cmd, net.Listener, error) {
	prepare := func(c *exec.Cmd) {
		c.Stdin, c.Stdout, c.Stderr = ro.Stdin, ro.Stdout, ro.Stderr
		if _, ok := ro.Stderr.(*os.File); !ok && ro.Stderr != nil {
			// A writer that is not a file is copied to by exec's own
			// goroutine: through the lock, so a refusal line and the
			// command's output never write into it at once.
			c.Stderr = stderr
		}
		c.Cancel = func() error { return terminate(c.Process) }
		c.WaitDelay = 5 * time.Second
	}
	if ro.NoSandbox {
		stderr.line("ocfetch: warning: --no-sandbox: " + cmd[0] + "'s network is not confined; only programs that honour the proxy variables use the proxy")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
		}
		c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
		c.Env = Env(os.Environ(), ln.Addr().(*net.TCPAddr).AddrPort(), creds)
		prepare(c)
		if err := c.Start(); err != nil {
			ln.Close()
			return nil, nil, err
		}
		return c, ln, nil
	}
	sc, err := sandbox.Command(ctx, cmd, func(p netip.AddrPort) []string { return Env(os.Environ(), p, creds) },
		&sandbox.Options{Workspace: opts.Scope.Workspace.Root, DenyUnixSockets: ro.DenyUnixSockets})
	if err != nil {
		return nil, nil, err
	}
	if sc.Filesystem, err = SandboxFilesystem(opts, ro.Filesystem); err != nil {
		return nil, nil, err
	}
	prepare(sc.Cmd)
	ln, err := sc.Start()
	if err != nil {
		return nil, nil, err
	}
	if conf := sc.Confinement(); conf != "" {
		log.Info("sandbox filesystem", "confinement", conf, "writable", strings.Join(sc.Filesystem.Writable, ","), "write_anywhere", sc.Filesystem.WriteAnywhere)
	}
	return sc.Cmd, ln, nil
}

// Env returns environ without any *_PROXY variable (in any case), plus
// HTTP_PROXY and HTTPS_PROXY set to http://USER:PASS@ADDR, ALL_PROXY set to
// socks5h://USER:PASS@ADDR (the proxy resolves names), each in both cases,
// and NO_PROXY/no_proxy set empty, so no host bypasses the proxy. With nil
// creds the URLs carry no userinfo.
func Env(environ []string, proxy netip.AddrPort, creds *Credentials) []string {
	out := make([]string, 0, len(environ)+len(ProxyEnv)+2)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(strings.ToUpper(k), "_PROXY") {
			continue
		}
		out = append(out, kv)
	}
	u := func(scheme string) string {
		pu := url.URL{Scheme: scheme, Host: proxy.String()}
		if creds != nil {
			pu.User = creds.Userinfo()
		}
		return pu.String()
	}
	httpURL, socksURL := u("http"), u("socks5h")
	for _, k := range ProxyEnv {
		v := httpURL
		if strings.EqualFold(k, "ALL_PROXY") {
			v = socksURL
		}
		out = append(out, k+"="+v)
	}
	return append(out, "NO_PROXY=", "no_proxy=")
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
