package sandbox

import (
	"fmt"
	"strings"
)

// SandboxExec is the macOS sandbox runner.
const SandboxExec = "/usr/bin/sandbox-exec"

// SeatbeltProfile returns the Seatbelt (sandbox-exec) profile that lets a
// command do everything but open network connections, except outbound TCP
// to the proxy on localhost:port. Listening on and connecting to its own
// loopback services stay denied too (the proxy is the one way out); Unix
// sockets on the filesystem stay allowed, as on Linux, except the
// system resolver's, so names do not resolve inside (the proxy resolves
// them).
func SeatbeltProfile(port uint16) string {
	var b strings.Builder
	b.WriteString("(version 1)\n")
	b.WriteString("(allow default)\n")
	b.WriteString("(deny network*)\n")
	fmt.Fprintf(&b, "(allow network-outbound (remote ip \"localhost:%d\"))\n", port)
	b.WriteString("(allow network-outbound (remote unix-socket))\n")
	b.WriteString("(deny network-outbound (literal \"/private/var/run/mDNSResponder\"))\n")
	return b.String()
}

// SeatbeltDenyUnixSockets, appended to [SeatbeltProfile], denies the
// command connecting to any Unix socket (ocfetch run --deny-unix-sockets):
// in a Seatbelt profile the last matching rule wins.
const SeatbeltDenyUnixSockets = "(deny network-outbound (remote unix-socket))\n"

// SeatbeltArgv is the command line that runs argv (argv[0] a path) under
// [SeatbeltProfile](port). argv[0] is an absolute path, so it cannot be
// read as an option of sandbox-exec.
func SeatbeltArgv(port uint16, argv []string) []string {
	return append([]string{SandboxExec, "-p", SeatbeltProfile(port)}, argv...)
}
