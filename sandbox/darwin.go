//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"

	"github.com/ocfetch/ocfetch/refusal"
)

// platform is the macOS state of a Cmd: the proxy's listener, opened on
// the host's loopback before the profile naming its port is written.
type platform struct {
	ln net.Listener
}

// Command prepares argv (argv[0] looked up in PATH) to run under
// sandbox-exec with [SeatbeltProfile] for the port of a new listener on
// 127.0.0.1, returned by [Cmd.Start]. env is called once with its
// address. This path is not tested on a Mac by the project's CI.
func Command(ctx context.Context, argv []string, env EnvFunc) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if _, err := os.Stat(SandboxExec); err != nil {
		return nil, refusal.Newf(refusal.SandboxUnavailable, "%s is not available", SandboxExec).
			WithHint("run on a macOS that has sandbox-exec, or run without the sandbox: ocfetch run --no-sandbox -- COMMAND").Wrap(err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen on 127.0.0.1: %w", err)
	}
	proxy := ln.Addr().(*net.TCPAddr).AddrPort()
	proxy = netip.AddrPortFrom(proxy.Addr().Unmap(), proxy.Port())
	full := SeatbeltArgv(proxy.Port(), append([]string{path}, argv[1:]...))
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Env = env(proxy)
	return &Cmd{Cmd: cmd, Proxy: proxy, plat: platform{ln: ln}}, nil
}

// Start starts the command under sandbox-exec and returns the proxy's
// listener.
func (c *Cmd) Start() (net.Listener, error) {
	if c.Filesystem != nil {
		// The profile is [SeatbeltProfile] and the file rules:
		// sandbox-exec -p PROFILE PATH ARGV...
		home, _ := os.UserHomeDir()
		c.Cmd.Args[2] = SeatbeltProfile(c.Proxy.Port()) + SeatbeltFileRules(c.Filesystem.Resolve(home))
		c.Cmd.Env = append(c.Cmd.Env, MarkerEnv+"=seatbelt")
		c.confinement = "seatbelt"
	}
	if err := c.Cmd.Start(); err != nil {
		c.plat.ln.Close()
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	return c.plat.ln, nil
}

// Mechanism names the filesystem confinement on macOS: the Seatbelt
// profile's file rules.
func Mechanism(*Plan) string {
	return "Seatbelt (sandbox-exec profile: file-write* allowed only under the writable roots, denied on the read-only paths; file-read* denied on the hidden ones)"
}
