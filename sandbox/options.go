package sandbox

// Options configure [Command]. A nil *Options is the zero value.
type Options struct {
	// Workspace is the directory the command works in, the workspace
	// root of `ocfetch run`; "" means the current directory. On Linux,
	// when ocfetch runs as root, the command runs as an ordinary user
	// chosen with it (see [Command]), and it must be a directory that
	// user can enter, read and write.
	Workspace string
	// DenyUnixSockets refuses the command creating Unix domain sockets
	// (socket(AF_UNIX) fails with EPERM on Linux; connecting to one is
	// denied on macOS), so it cannot reach a host daemon through a socket
	// on the file system (Docker's, an SSH agent, a desktop bus).
	// Descriptors it is handed and socketpair(2) keep working.
	DenyUnixSockets bool
}
