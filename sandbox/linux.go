//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/refusal"
)

// handoffTimeout bounds the wait for the namespace's first process to hand
// over its listener.
const handoffTimeout = 15 * time.Second

// platform is the Linux state of a Cmd.
type platform struct {
	root     bool
	id       identity
	denyUnix bool
	argv     []string
	env      []string
	ctx      context.Context
}

// Command prepares argv (argv[0] looked up in PATH) to run in new user,
// network and UTS namespaces whose only open port, 127.0.0.1:PORT, is the
// proxy's listener (returned by [Cmd.Start]). env is called once with
// that address. A command that cannot be found is an error wrapping
// exec.ErrNotFound.
//
// The command runs as an ordinary user: the caller's uid and gid, or, when
// ocfetch is root, the identity chooseIdentity picks (the user who ran
// sudo, the workspace's owner, or [UnprivilegedID]); a root-owned
// workspace that identity cannot use is refused with sandbox_unavailable.
// It inherits no descriptor but its standard streams, holds no
// capability, and can make sockets of the families AF_INET, AF_INET6,
// AF_UNIX (unless opts.DenyUnixSockets) and AF_NETLINK (NETLINK_ROUTE)
// only.
func Command(ctx context.Context, argv []string, env EnvFunc, opts *Options) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if opts == nil {
		opts = &Options{}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if _, ok := abis()[runtime.GOARCH]; !ok {
		return nil, refusal.Newf(refusal.SandboxUnavailable, "ocfetch has no socket filter for the %s architecture, so it cannot limit the command's socket families", runtime.GOARCH).
			WithHint("run on amd64 or arm64, " + fallbackHint).Wrap(errNoSocketFilter)
	}
	id, err := prepareIdentity(opts.Workspace)
	if err != nil {
		return nil, err
	}
	proxy := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(20000+rand.IntN(40000)))
	full := append([]string{path}, argv...)
	c := &Cmd{Proxy: proxy, plat: platform{
		root:     os.Geteuid() == 0,
		id:       id,
		denyUnix: opts.DenyUnixSockets,
		argv:     full,
		env:      env(proxy),
		ctx:      ctx,
	}}
	c.Cmd, err = c.plat.command(proxy.Port())
	if err != nil {
		return nil, err
	}
	return c, nil
}

// command builds the re-execution of ocfetch as the namespace's first
// process, in new user, network and UTS namespaces (the command's host
// name is its own), as the command's identity (setIdentity), with
// CAP_NET_ADMIN kept across exec to raise lo and dropped before the
// command runs.
func (p *platform) command(port uint16) (*exec.Cmd, error) {
	mode := modeUserNS
	if p.denyUnix {
		mode += modeDenyUnix
	}
	args := append([]string{mode, strconv.Itoa(int(port))}, p.argv...)
	cmd, err := reexec.Command(p.ctx, PartName, args...)
	if err != nil {
		return nil, err
	}
	// The running binary through its magic link: as another uid than
	// root's, its path may run through directories that uid cannot enter.
	cmd.Path = "/proc/self/exe"
	cmd.Env = append(p.env[:len(p.env):len(p.env)], reexec.Env(PartName))
	attr := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS,
		Pdeathsig:   syscall.SIGKILL,
		AmbientCaps: []uintptr{unix.CAP_NET_ADMIN},
	}
	p.id.setIdentity(attr)
	cmd.SysProcAttr = attr
	return cmd, nil
}

// Start starts the command in its namespace and returns the listener on
// which the proxy must serve: the command's only route out. Start fails
// with a *refusal.Error (sandbox_unavailable) when the kernel refuses the
// namespaces or the namespace cannot be set up, naming the cause and the
// fix; the command has not run then.
//
// Root where the kernel allows no user namespace (a container's seccomp
// profile) is refused too: a network namespace alone would leave the
// command host root.
func (c *Cmd) Start() (net.Listener, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socketpair: %w", err)
	}
	parent := os.NewFile(uintptr(fds[0]), "sandbox-control")
	child := os.NewFile(uintptr(fds[1]), "sandbox-control-child")
	defer parent.Close()
	c.ExtraFiles = []*os.File{child}
	if err := c.prepareFilesystem(); err != nil {
		child.Close()
		return nil, err
	}
	err = c.Cmd.Start()
	child.Close()
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && (errno == syscall.EPERM || errno == syscall.EINVAL || errno == syscall.ENOSPC || errno == syscall.EACCES || errno == syscall.EUSERS) {
			return nil, diagnose(stageClone, err, c.plat.root, readSysctl)
		}
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	ln, conf, err := receiveListener(parent, !c.plat.root)
	c.confinement = confinementName(conf)
	if err != nil {
		c.Process.Kill()
		c.Wait()
		return nil, err
	}
	return ln, nil
}

// receiveListener reads the child's one control message: the listening
// socket and the filesystem confinement in force, or the stage and errno
// at which it failed.
func receiveListener(f *os.File, unprivileged bool) (net.Listener, byte, error) {
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, 0, fmt.Errorf("sandbox: control socket: %w", err)
	}
	defer conn.Close()
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil, 0, errors.New("sandbox: control socket is not a Unix socket")
	}
	uc.SetReadDeadline(time.Now().Add(handoffTimeout))
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		return nil, 0, refusal.New(refusal.SandboxUnavailable, "the sandbox's first process ended before it opened the proxy's port").
			WithHint("see the error above; " + fallbackHint).Wrap(err)
	}
	switch buf[0] {
	case msgError:
		if n < 6 {
			break
		}
		errno := syscall.Errno(uint32(buf[2]) | uint32(buf[3])<<8 | uint32(buf[4])<<16 | uint32(buf[5])<<24)
		return nil, 0, diagnose(stage(buf[1]), errno, !unprivileged, readSysctl)
	case msgListener:
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			break
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			break
		}
		lf := os.NewFile(uintptr(fds[0]), "sandbox-listener")
		defer lf.Close()
		ln, err := net.FileListener(lf)
		if err != nil {
			return nil, 0, fmt.Errorf("sandbox: listener: %w", err)
		}
		conf := byte(0)
		if n > 1 {
			conf = buf[1]
		}
		return ln, conf, nil
	}
	return nil, 0, errors.New("sandbox: malformed control message from the namespace")
}

// Control messages from the namespace's first process.
const (
	msgListener = 'L' // with the listening socket as SCM_RIGHTS, then the confinement byte
	msgError    = 'E' // stage byte, errno (4 bytes, little-endian)
)

func init() { reexec.Register(PartName, netnsMain) }

// The first argument of the namespace's first process: the mode, with
// modeDenyUnix appended when the command may not make Unix sockets.
const (
	modeUserNS   = "userns"
	modeDenyUnix = "+deny-unix"
)

// netnsMain is the namespace's first process: arguments MODE PORT PATH
// ARGV..., the control socket on descriptor 3. It raises lo, listens on
// 127.0.0.1:PORT, marks every inherited descriptor close-on-exec, loads
// the socket filter, sends the listener to the parent, drops its
// capabilities and executes PATH with ARGV and its environment. It
// returns (exit 125) only when one of these fails, after telling the
// parent why.
//
// The process runs as the command's identity, an ordinary user of its
// own user namespace, with CAP_NET_ADMIN in the ambient set; clearing
// that set leaves the command no capability at all, and no_new_privs (set
// with the filter) keeps any setuid or file-capability program from
// gaining one.
func netnsMain() int {
	const ctl = 3
	if len(os.Args) < 5 || strings.TrimSuffix(os.Args[1], modeDenyUnix) != modeUserNS {
		fmt.Fprintln(os.Stderr, "ocfetch: sandbox: usage: userns[+deny-unix] PORT PATH ARGV...")
		return 125
	}
	denyUnix := strings.HasSuffix(os.Args[1], modeDenyUnix)
	port, err := strconv.ParseUint(os.Args[2], 10, 16)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ocfetch: sandbox: bad port")
		return 125
	}
	path, argv := os.Args[3], os.Args[4:]
	fail := func(st stage, err error) int {
		var errno syscall.Errno
		errors.As(err, &errno)
		e := uint32(errno)
		unix.Sendmsg(ctl, []byte{msgError, byte(st), byte(e), byte(e >> 8), byte(e >> 16), byte(e >> 24)}, nil, nil, 0)
		return 125
	}
	if err := raiseLoopback(); err != nil {
		return fail(stageLo, err)
	}
	lfd, err := listenLoopback(uint16(port))
	if err != nil {
		return fail(stageListen, err)
	}
	conf, err := confineFilesystem()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ocfetch: sandbox: filesystem: %v\n", err)
		return fail(stageMount, err)
	}
	// Nothing inherited crosses into the command (fds_linux.go), and it
	// makes sockets of the families it needs only (seccomp_linux.go).
	if err := closeInheritedFDs(); err != nil {
		return fail(stageFDs, err)
	}
	if err := confineSockets(denyUnix); err != nil {
		return fail(stageSeccomp, err)
	}
	if err := unix.Sendmsg(ctl, []byte{msgListener, conf}, unix.UnixRights(lfd), nil, 0); err != nil {
		return fail(stageListen, err)
	}
	unix.Close(lfd)
	unix.Close(ctl)
	// The command keeps no capability of this process: none ambient, none
	// inheritable (Go raised CAP_NET_ADMIN there for the ambient set).
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if err := dropMountCapability(); err != nil {
		fmt.Fprintf(os.Stderr, "ocfetch: sandbox: %v\n", err)
		return 125
	}
	var none [2]unix.CapUserData
	unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &none[0])
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0)
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "ocfetch: run: %s: %v\n", argv[0], err)
	if errors.Is(err, syscall.ENOENT) {
		return 127
	}
	return 126
}

// raiseLoopback sets lo up in the current network namespace.
func raiseLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// listenLoopback returns a listening TCP socket on 127.0.0.1:port, close
// on exec.
func listenLoopback(port uint16) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(port), Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
