//go:build !linux && !darwin

package sandbox

import (
	"context"
	"net"
	"runtime"

	"github.com/ocfetch/ocfetch/refusal"
)

type platform struct{}

// Command refuses on this system: ocfetch can confine a command's network
// on Linux and macOS only.
func Command(ctx context.Context, argv []string, env EnvFunc) (*Cmd, error) {
	return nil, refusal.Newf(refusal.SandboxUnavailable, "ocfetch cannot confine a command's network on %s", runtime.GOOS).
		WithHint("run without the sandbox: ocfetch run --no-sandbox -- COMMAND (its network is then only advised to use the proxy)")
}

// Start is never reached: Command refuses.
func (c *Cmd) Start() (net.Listener, error) {
	return nil, refusal.New(refusal.SandboxUnavailable, "no sandbox on this system")
}

// Mechanism names the filesystem confinement of this system: none.
func Mechanism(*Plan) string { return "none (no sandbox on " + runtime.GOOS + ")" }
