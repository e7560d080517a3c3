package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// ProxyEnv lists the variables [Run] sets to the proxy's URL, in both cases.
var ProxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// shutdownGrace bounds how long Run waits for the child's last tunnels to
// finish once the child has exited.
const shutdownGrace = 2 * time.Second

// Run starts a proxy for opts on a free port of 127.0.0.1, runs cmd with
// its standard streams and [Env] pointing every client at the proxy, and
// returns cmd's exit status: its exit code, or 128+N when signal N killed
// it. SIGINT and SIGTERM received meanwhile are forwarded to cmd (Run
// itself keeps running until cmd exits); cancelling ctx sends cmd SIGTERM,
// then SIGKILL after 5 seconds. The proxy is shut down before Run returns.
//
// err is non-nil when cmd could not be run at all or the proxy failed;
// exitCode is then 127 for a command that was not found, 126 for one that
// could not be executed, and 1 otherwise, as a shell would report.
func Run(ctx context.Context, opts *Options, cmd []string) (exitCode int, err error) {
	return run(ctx, opts, cmd, os.Stdin, os.Stdout, os.Stderr)
}

func run(ctx context.Context, opts *Options, cmd []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(cmd) == 0 {
		return 2, errors.New("proxy: run: no command given")
	}
	s, err := New(opts)
	if err != nil {
		return 1, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1, fmt.Errorf("proxy: listen on 127.0.0.1: %w", err)
	}
	proxyURL := "http://" + ln.Addr().String()
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

	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	c.Env = Env(os.Environ(), proxyURL)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = 5 * time.Second

	// Catch the signals before the child exists, so none is lost between
	// Start and Notify; until the child runs they are only recorded.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if err := c.Start(); err != nil {
		return startFailure(err), fmt.Errorf("proxy: run %s: %w", cmd[0], err)
	}
	s.log.Info("running command through the proxy", "proxy", proxyURL, "pid", c.Process.Pid)
	waitErr := make(chan error, 1)
	go func() { waitErr <- c.Wait() }()
	for {
		select {
		case sig := <-sigs:
			// The child usually shares the terminal's process group and
			// gets a terminal's ^C itself too; a signal sent to this
			// process alone (kill, a supervisor) reaches it only this way.
			c.Process.Signal(sig)
		case err := <-serveErr:
			// The proxy stopped under the child: end the child rather
			// than let it run without network, and say why.
			serveErr = nil
			proxyErr = err
			c.Process.Signal(syscall.SIGTERM)
		case err := <-waitErr:
			code, err := exitStatus(c, err)
			if err == nil && proxyErr != nil {
				err = fmt.Errorf("proxy: stopped while the command ran: %w", proxyErr)
			}
			return code, err
		}
	}
}

// Env returns environ without any *_PROXY variable (in any case), plus
// HTTP_PROXY, HTTPS_PROXY and ALL_PROXY in both cases set to proxyURL and
// NO_PROXY/no_proxy set empty, so no host bypasses the proxy.
func Env(environ []string, proxyURL string) []string {
	out := make([]string, 0, len(environ)+len(ProxyEnv)+2)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(strings.ToUpper(k), "_PROXY") {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range ProxyEnv {
		out = append(out, k+"="+proxyURL)
	}
	return append(out, "NO_PROXY=", "no_proxy=")
}

// exitStatus maps the result of Wait to the exit status a shell reports.
func exitStatus(c *exec.Cmd, err error) (int, error) {
	if c.ProcessState == nil {
		return 1, fmt.Errorf("proxy: run: %w", err)
	}
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
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
