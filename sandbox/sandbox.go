package sandbox

import (
	"net/netip"
	"os/exec"
)

// PartName is the internal/reexec part that runs as the first process of
// the namespace on Linux.
const PartName = "sandbox-netns"

// EnvFunc returns the command's whole environment for the address at which
// the command reaches the proxy.
type EnvFunc func(proxy netip.AddrPort) []string

// Cmd is a command prepared to run confined. Set the standard streams,
// Cancel and WaitDelay of the embedded exec.Cmd as for any command (its
// Path, Args, Env and SysProcAttr belong to the sandbox), then call
// [Cmd.Start], then Wait.
type Cmd struct {
	*exec.Cmd
	// Proxy is where the command reaches the proxy: 127.0.0.1:PORT as
	// the command sees it.
	Proxy netip.AddrPort
	// Filesystem confines what the command may write and read (Linux and
	// macOS); set it before Start. Nil confines the network only (and
	// keeps /proc/sys read-only on Linux).
	Filesystem *Filesystem

	// confinement is what [Cmd.Confinement] reports once started.
	confinement string
	plat        platform
}
