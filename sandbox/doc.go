// Package sandbox confines a command's network to one proxy port: the
// command `ocfetch run` starts can reach nothing but the egress proxy,
// whatever it does with the proxy variables.
//
// On Linux the command runs in new user, network and UTS namespaces, as
// an ordinary user: the caller's uid and gid mapped to themselves, or, when
// ocfetch is root, the user who ran sudo, the workspace's owner or
// [UnprivilegedID] (no setuid helper). The ocfetch binary is re-executed
// as the namespace's first process (the part [PartName], through
// internal/reexec): it raises the loopback interface, listens on
// 127.0.0.1:PORT inside the namespace, marks every inherited descriptor
// from 3 up close-on-exec, loads a seccomp filter that limits socket(2)
// to AF_INET, AF_INET6, AF_UNIX (unless [Options].DenyUnixSockets) and
// NETLINK_ROUTE, hands the listening socket to the ocfetch process
// outside over an inherited Unix socket pair, drops its capabilities and
// executes the command in its place. The proxy outside
// accepts the command's connections on that socket directly: a socket
// keeps the namespace it was made in, so no relay copies bytes. Nothing
// else is routable and no DNS server runs inside, so a program that
// ignores the proxy variables gets "network unreachable" (or "connection
// refused" on loopback). Unix sockets are files, not network: those the
// command can open on the filesystem stay reachable (Docker's, a desktop
// bus), as in every network-namespace sandbox, unless DenyUnixSockets.
//
// On macOS the command runs under sandbox-exec with a generated Seatbelt
// profile that allows outbound connections only to the proxy's port on
// localhost (see [SeatbeltProfile]). Elsewhere, and wherever the kernel
// refuses the namespaces, [Command] returns a *refusal.Error with code
// sandbox_unavailable naming the cause and the fix.
//
// [Cmd.Filesystem] confines the command's files too (Linux and macOS; see
// [Filesystem]): writes only under its writable roots, read-only islands
// that no flag lifts (the files that decide or record the network, the
// dangerous files of [DangerousNames] in a writable root, /proc/sys),
// hidden paths. On Linux the namespace's first process applies the
// [Plan] in a mount namespace of its own (bind mounts, which also keep
// the directories leading to an island from being renamed away) and
// restricts writes with Landlock, or, on a kernel without Landlock, by
// remounting everything else read-only; [Cmd.Confinement] says which.
// On macOS the plan becomes Seatbelt file rules ([SeatbeltFileRules]).
//
// Wiring (shellrun.Run does this):
//
//	cmd, err := sandbox.Command(ctx, []string{"curl", "https://example.com/"},
//		func(p netip.AddrPort) []string { return shellrun.Env(os.Environ(), p, &creds) },
//		&sandbox.Options{Workspace: root})
//	if err != nil { ... } // refusal.SandboxUnavailable
//	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
//	ln, err := cmd.Start() // the proxy's only listener
//	go srv.Serve(ln)
//	err = cmd.Wait()
//
// A binary that uses the package must call reexec.Init first thing in
// main (and in TestMain of a package whose tests start a sandbox).
package sandbox
