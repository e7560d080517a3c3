//go:build linux

package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/ocfetch/ocfetch/refusal"
)

// The uids and gids the root tests give workspaces to and name as the
// user who ran sudo: ids no account on a test machine has.
const (
	testOwner   = 54321
	testSudoUID = 54322
	testSudoGID = 54323
)

// testWorkspace returns a directory the sandbox's command can use: a
// fresh temporary directory, which for a test running as root is given to
// testOwner (the command then runs as that user, the workspace's owner).
func testWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		t.Setenv("SUDO_UID", "")
		giveTo(t, dir, testOwner, testOwner)
	}
	return dir
}

// giveTo chowns dir to uid:gid and lets every user search the temporary
// directories above it (t.TempDir's parent is 0700), as a user's own
// project is reachable on a machine.
func giveTo(t *testing.T, dir string, uid, gid int) {
	t.Helper()
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Dir(dir); strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o111); err != nil {
			t.Fatal(err)
		}
	}
}

// confineProbe runs one of the checks below as the confined command and
// returns its exit status (0: the check saw what the sandbox promises).
//
//	identity FILE  print uid, gid and capability sets; create FILE
//	hostname NAME  sethostname(NAME) must fail with EPERM
//	fd N           descriptor N must not be open
//	sockets        try each socket family of socketChecks, one line each
//	process PID    every way into process PID (the proxy's) must be refused
func confineProbe(verb, arg string) int {
	switch verb {
	case "identity":
		fmt.Println(os.Getuid(), os.Getgid())
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "CapEff:") || strings.HasPrefix(l, "CapPrm:") || strings.HasPrefix(l, "CapInh:") || strings.HasPrefix(l, "CapAmb:") {
				fmt.Println(l)
			}
		}
		if err := os.WriteFile(arg, []byte("made inside\n"), 0o644); err != nil {
			fmt.Println(err)
			return 1
		}
		return 0
	case "hostname":
		err := unix.Sethostname([]byte(arg))
		fmt.Println("sethostname:", err)
		name, _ := os.Hostname()
		fmt.Println(name)
		if !errors.Is(err, unix.EPERM) {
			return 1
		}
		return 0
	case "fd":
		n, _ := strconv.Atoi(arg)
		_, statErr := os.Lstat("/proc/self/fd/" + arg)
		_, werr := unix.Write(n, []byte("GET / HTTP/1.0\r\n\r\n"))
		fmt.Printf("/proc/self/fd/%s: %v; write: %v\n", arg, statErr, werr)
		if !errors.Is(statErr, fs.ErrNotExist) || !errors.Is(werr, unix.EBADF) {
			return 1
		}
		return 0
	case "process":
		return processProbe(arg)
	case "sockets":
		for _, c := range socketChecks {
			err := c.try()
			verdict := "ok"
			if err != nil {
				verdict = unix.ErrnoName(err.(syscall.Errno))
			}
			fmt.Println(c.name, verdict)
		}
		return 0
	}
	return 2
}

// socketChecks are the sockets the sockets probe tries to make.
var socketChecks = []struct {
	name string
	try  func() error
}{
	{"inet", func() error { return socket(unix.AF_INET, unix.SOCK_STREAM, 0) }},
	{"inet6", func() error { return socket(unix.AF_INET6, unix.SOCK_DGRAM, 0) }},
	{"unix", func() error { return socket(unix.AF_UNIX, unix.SOCK_STREAM, 0) }},
	{"unix-pair", func() error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	}},
	{"netlink-route", func() error { return socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE) }},
	{"netlink-uevent", func() error { return socket(unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_KOBJECT_UEVENT) }},
	{"vsock", func() error { return socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0) }},
	{"packet", func() error { return socket(unix.AF_PACKET, unix.SOCK_RAW, 0) }},
	{"alg", func() error { return socket(unix.AF_ALG, unix.SOCK_SEQPACKET, 0) }},
	// AF_INET with garbage in the high half: the kernel reads an int
	// (AF_INET), the filter refuses what it cannot read whole.
	{"inet-high-bits", func() error { return socket(1<<32|unix.AF_INET, unix.SOCK_STREAM, 0) }},
	{"io_uring", func() error {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	}},
}

func socket(family, typ, proto uint64) error {
	fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET, uintptr(family), uintptr(typ), uintptr(proto))
	if errno != 0 {
		return errno
	}
	unix.Close(int(fd))
	return nil
}

// TestSocketFamilies: inside the sandbox socket(2) makes AF_INET, AF_INET6,
// AF_UNIX and NETLINK_ROUTE sockets and refuses every other family with
// EPERM (vsock, packet, crypto, other netlink protocols), as well as a
// family it cannot read and io_uring; with DenyUnixSockets AF_UNIX too,
// while socketpair(AF_UNIX) and the proxy over AF_INET keep working.
func TestSocketFamilies(t *testing.T) {
	refused := map[string]bool{"netlink-uevent": true, "vsock": true, "packet": true, "alg": true, "inet-high-bits": true, "io_uring": true}
	for _, denyUnix := range []bool{false, true} {
		t.Run(fmt.Sprintf("deny-unix-sockets=%v", denyUnix), func(t *testing.T) {
			code, out := probeWith(t, "sockets", &Options{Workspace: testWorkspace(t), DenyUnixSockets: denyUnix}, nil)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			got := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				name, verdict, _ := strings.Cut(l, " ")
				got[name] = verdict
			}
			for _, c := range socketChecks {
				want := "ok"
				if refused[c.name] || denyUnix && c.name == "unix" {
					want = "EPERM"
				}
				switch v := got[c.name]; {
				case want == "EPERM" && v != "EPERM":
					t.Errorf("%s: got %q; want EPERM", c.name, v)
				case want == "ok" && c.name == "inet6" && v == "EAFNOSUPPORT":
					// a kernel without IPv6
				case want == "ok" && v != "ok":
					t.Errorf("%s: got %q; want the socket made", c.name, v)
				}
			}
			code, out = probeWith(t, "tcp PROXY", &Options{Workspace: testWorkspace(t), DenyUnixSockets: denyUnix}, func(ln net.Listener) {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("proxy\n"))
				c.Close()
			})
			if code != 0 || !strings.Contains(out, `"proxy\n"`) {
				t.Errorf("the proxy over AF_INET: exit %d, %q; want it reached", code, out)
			}
		})
	}
}

// TestInheritedDescriptors: a socket the invoker left open without
// close-on-exec on descriptor 7 (a shell's `exec 7<>/dev/tcp/...`) is not
// open inside the sandbox, while a child started without the sandbox
// inherits it (so the test sees a descriptor that would cross).
func TestInheritedDescriptors(t *testing.T) {
	addr, _ := hostListener(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A descriptor as a shell's `exec 7<>` leaves it, but numbered high:
	// descriptors are allocated lowest first, so no goroutine of an earlier
	// test (an exec.Cmd's pipe closed after Wait) holds it and closes it
	// under the test.
	fd := 207
	for ; fd < 264; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); errors.Is(err, unix.EBADF) {
			break
		}
	}
	if err := unix.Dup3(int(f.Fd()), fd, 0); err != nil { // no O_CLOEXEC
		t.Fatal(err)
	}
	defer unix.Close(fd)
	action := "fd " + strconv.Itoa(fd)

	plain := exec.Command("/proc/self/exe")
	plain.Env = append(os.Environ(), "OCFETCH_SANDBOX_PROBE="+action)
	if out, err := plain.CombinedOutput(); err == nil {
		t.Fatalf("without the sandbox the child did not inherit descriptor %d (%s): the test cannot tell", fd, out)
	}
	code, out := probe(t, action, nil)
	if code != 0 {
		t.Errorf("inside the sandbox: exit %d, %q; want descriptor %d closed", code, out, fd)
	}
}

// TestHostname: sethostname inside the sandbox fails with EPERM, and the
// host's name is unchanged (the command has a UTS namespace of its own
// and no capability in it).
func TestHostname(t *testing.T) {
	before, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := Command(context.Background(), []string{"/proc/self/exe"}, func(netip.AddrPort) []string {
		return append(os.Environ(), "OCFETCH_SANDBOX_PROBE=hostname ocfetch-sandbox-probe")
	}, &Options{Workspace: testWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	// The command's UTS namespace starts with the host's name, and keeps it.
	lines := outputLines(t, cmd)
	if want := []string{"sethostname: operation not permitted", before}; !slices.Equal(lines, want) {
		t.Errorf("inside: got %q; want %q", lines, want)
	}
	if after, _ := os.Hostname(); after != before {
		t.Errorf("the host's name changed from %q to %q", before, after)
	}
}

// TestIdentity: the command runs as the identity chooseIdentity names and
// holds no capability; a file it writes in the workspace belongs, seen
// from the host, to that uid and gid. For root: the user who ran sudo,
// the workspace's owner, or UnprivilegedID; never uid 0.
func TestIdentity(t *testing.T) {
	type tc struct {
		name             string
		sudoUID, sudoGID string
		owner, group     int // -1: leave the directory root's
		mode             os.FileMode
		wantUID, wantGID int
	}
	tests := []tc{{"ordinary user", "", "", -1, -1, 0o755, os.Getuid(), os.Getgid()}}
	if os.Geteuid() == 0 {
		tests = []tc{
			{"sudo", strconv.Itoa(testSudoUID), strconv.Itoa(testSudoGID), testSudoUID, testSudoGID, 0o755, testSudoUID, testSudoGID},
			{"SUDO_UID=0 is ignored", "0", "0", testOwner, testOwner, 0o755, testOwner, testOwner},
			{"workspace owner", "", "", testOwner, testOwner, 0o755, testOwner, testOwner},
			{"owner in root's group", "", "", testOwner, 0, 0o775, testOwner, UnprivilegedID},
			{"root-owned, writable by all", "", "", -1, -1, 0o777, UnprivilegedID, UnprivilegedID},
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if os.Geteuid() == 0 {
				t.Setenv("SUDO_UID", tc.sudoUID)
				t.Setenv("SUDO_GID", tc.sudoGID)
				if tc.owner >= 0 {
					giveTo(t, dir, tc.owner, tc.group)
				} else {
					giveTo(t, dir, 0, 0)
				}
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "made-inside")
			code, out := probeWith(t, "identity "+file, &Options{Workspace: dir}, nil)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if want := fmt.Sprint(tc.wantUID, tc.wantGID); len(lines) != 5 || lines[0] != want {
				t.Fatalf("got %q; want uid and gid %q and four capability lines", lines, want)
			}
			for _, l := range lines[1:] {
				if f := strings.Fields(l); len(f) != 2 || strings.Trim(f[1], "0") != "" {
					t.Errorf("%q: want no capability", l)
				}
			}
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if int(st.Uid) != tc.wantUID || int(st.Gid) != tc.wantGID {
				t.Errorf("the file the command wrote belongs to %d:%d on the host; want %d:%d", st.Uid, st.Gid, tc.wantUID, tc.wantGID)
			}
		})
	}
}

// TestRootRefusesUnusableWorkspace: as root, a workspace the command's
// identity cannot enter and write (a 0700 directory of root's) is refused
// with sandbox_unavailable naming the identity, the directory and the
// fixes; the command does not run.
func TestRootRefusesUnusableWorkspace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the identity is chosen for root only")
	}
	for _, tc := range []struct {
		name, sudoUID, sudoGID, who string
	}{
		{"no sudo", "", "", "ocfetch's unprivileged uid (uid 2147483646"},
		{"sudo", strconv.Itoa(testSudoUID), strconv.Itoa(testSudoGID), fmt.Sprintf("the user who ran sudo (SUDO_UID) (uid %d", testSudoUID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SUDO_UID", tc.sudoUID)
			t.Setenv("SUDO_GID", tc.sudoGID)
			dir := t.TempDir() // root's, 0700
			ran := filepath.Join(dir, "ran")
			_, err := Command(context.Background(), []string{"sh", "-c", "touch " + ran}, func(netip.AddrPort) []string { return os.Environ() }, &Options{Workspace: dir})
			r, ok := refusal.As(err)
			if !ok || r.Code != refusal.SandboxUnavailable {
				t.Fatalf("got %v; want sandbox_unavailable", err)
			}
			for _, want := range []string{tc.who, dir, "permission denied"} {
				if !strings.Contains(r.Message, want) {
					t.Errorf("message %q does not name %q", r.Message, want)
				}
			}
			for _, want := range []string{"sudo", "chown", "--no-sandbox"} {
				if !strings.Contains(r.Hint, want) {
					t.Errorf("hint %q does not name %q", r.Hint, want)
				}
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

// fileInfo is an os.FileInfo with the owner chooseIdentity reads.
type fileInfo struct {
	os.FileInfo
	uid, gid uint32
}

func (f fileInfo) Sys() any { return &syscall.Stat_t{Uid: f.uid, Gid: f.gid} }

func TestChooseIdentity(t *testing.T) {
	const u = UnprivilegedID
	tests := []struct {
		name             string
		euid             int
		env              map[string]string
		owner, group     uint32
		wantUID, wantGID uint32
		wantRoot         bool
	}{
		{"ordinary user keeps its ids", 1000, map[string]string{"SUDO_UID": "5", "SUDO_GID": "5"}, 0, 0, uint32(os.Getuid()), uint32(os.Getgid()), false},
		{"root via sudo", 0, map[string]string{"SUDO_UID": "1000", "SUDO_GID": "1001"}, 2000, 2000, 1000, 1001, true},
		{"sudo from root is ignored", 0, map[string]string{"SUDO_UID": "0", "SUDO_GID": "0"}, 2000, 2001, 2000, 2001, true},
		{"sudo gid 0 is ignored", 0, map[string]string{"SUDO_UID": "1000", "SUDO_GID": "0"}, 2000, 2001, 2000, 2001, true},
		{"SUDO_UID not a number", 0, map[string]string{"SUDO_UID": "alice", "SUDO_GID": "1000"}, 2000, 2001, 2000, 2001, true},
		{"SUDO_UID -1", 0, map[string]string{"SUDO_UID": "4294967295", "SUDO_GID": "1000"}, 0, 0, u, u, true},
		{"SUDO_GID missing", 0, map[string]string{"SUDO_UID": "1000"}, 0, 0, u, u, true},
		{"workspace owner", 0, nil, 2000, 2001, 2000, 2001, true},
		{"workspace owner in root's group", 0, nil, 2000, 0, 2000, u, true},
		{"root's workspace", 0, nil, 0, 0, u, u, true},
		{"root's workspace, another group", 0, nil, 0, 50, u, u, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := chooseIdentity(tc.euid, func(k string) string { return tc.env[k] }, fileInfo{uid: tc.owner, gid: tc.group})
			if id.uid != tc.wantUID || id.gid != tc.wantGID || id.root != tc.wantRoot {
				t.Errorf("got %d:%d root=%v (%s); want %d:%d root=%v", id.uid, id.gid, id.root, id.who, tc.wantUID, tc.wantGID, tc.wantRoot)
			}
			if id.root && id.uid == 0 {
				t.Error("root's command runs as uid 0")
			}
		})
	}
}

// seccompData is a struct seccomp_data as the filter reads it on a
// little-endian machine, laid out for x/net/bpf's VM, which loads words
// big-endian: each 32-bit word is written big-endian at the offset where
// the kernel keeps it (an argument's low word first).
func seccompData(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNR:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[offArgs+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[offArgs+8*i+4:], uint32(a>>32))
	}
	return b
}

// TestSocketFilterProgram runs the filter of every supported architecture
// in a BPF interpreter over the system calls it must refuse and those it
// must let through, for each ABI a process may call with (so the i386 and
// AArch32 paths are checked on any machine).
func TestSocketFilterProgram(t *testing.T) {
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		kill  = unix.SECCOMP_RET_KILL_PROCESS
	)
	type call struct {
		name     string
		arch, nr uint32
		args     []uint64
		want     uint32
		denyUnix uint32 // the verdict with DenyUnixSockets; 0: as want
	}
	x64, i386 := uint32(unix.AUDIT_ARCH_X86_64), uint32(unix.AUDIT_ARCH_I386)
	a64, arm := uint32(unix.AUDIT_ARCH_AARCH64), uint32(unix.AUDIT_ARCH_ARM)
	tests := map[string][]call{
		"amd64": {
			{"socket(AF_INET)", x64, 41, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow, 0},
			{"socket(AF_INET6)", x64, 41, []uint64{unix.AF_INET6, unix.SOCK_DGRAM, 0}, allow, 0},
			{"socket(AF_UNIX)", x64, 41, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, eperm},
			{"socketpair(AF_UNIX)", x64, 53, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, 0},
			{"socketpair(AF_VSOCK)", x64, 53, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"socket(AF_NETLINK, NETLINK_ROUTE)", x64, 41, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE}, allow, 0},
			{"socket(AF_NETLINK, NETLINK_AUDIT)", x64, 41, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT}, eperm, 0},
			{"socket(AF_NETLINK, high bits in protocol)", x64, 41, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 1 << 32}, eperm, 0},
			{"socket(AF_VSOCK)", x64, 41, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"socket(AF_PACKET)", x64, 41, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, eperm, 0},
			{"socket(AF_BLUETOOTH)", x64, 41, []uint64{unix.AF_BLUETOOTH, unix.SOCK_RAW, 0}, eperm, 0},
			{"socket(AF_INET, high bits)", x64, 41, []uint64{1<<32 | unix.AF_INET, unix.SOCK_STREAM, 0}, eperm, 0},
			{"io_uring_setup", x64, 425, []uint64{1, 0}, eperm, 0},
			{"x32 socket(AF_VSOCK)", x64, x32Bit | 41, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"x32 socket(AF_INET)", x64, x32Bit | 41, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow, 0},
			{"read", x64, 0, []uint64{3, 0, 10}, allow, 0},
			{"i386 socket(AF_VSOCK)", i386, 359, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"i386 socket(AF_INET)", i386, 359, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow, 0},
			{"i386 socket(AF_UNIX)", i386, 359, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, eperm},
			{"i386 socketpair(AF_PACKET)", i386, 360, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, eperm, 0},
			{"i386 socketcall(SYS_SOCKET)", i386, 102, []uint64{sysSocket, 0xffff0000}, eperm, 0},
			{"i386 socketcall(SYS_SOCKETPAIR)", i386, 102, []uint64{sysSocketpair, 0xffff0000}, eperm, 0},
			{"i386 socketcall(SYS_CONNECT)", i386, 102, []uint64{3, 0xffff0000}, allow, 0},
			{"i386 io_uring_setup", i386, 425, []uint64{1, 0}, eperm, 0},
			{"i386 41 is dup, not socket", i386, 41, []uint64{unix.AF_VSOCK}, allow, 0},
			{"another ABI", a64, 198, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, kill, 0},
		},
		"arm64": {
			{"socket(AF_INET)", a64, 198, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow, 0},
			{"socket(AF_UNIX)", a64, 198, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, eperm},
			{"socketpair(AF_UNIX)", a64, 199, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, 0},
			{"socket(AF_VSOCK)", a64, 198, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"socket(AF_PACKET)", a64, 198, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, eperm, 0},
			{"socket(AF_NETLINK, NETLINK_ROUTE)", a64, 198, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, allow, 0},
			{"io_uring_setup", a64, 425, []uint64{1, 0}, eperm, 0},
			{"41 is not socket on arm64", a64, 41, []uint64{unix.AF_VSOCK}, allow, 0},
			{"arm socket(AF_VSOCK)", arm, 281, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm, 0},
			{"arm socket(AF_INET)", arm, 281, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow, 0},
			{"arm socketpair(AF_UNIX)", arm, 288, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow, 0},
			{"another ABI", x64, 41, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, kill, 0},
		},
	}
	if len(tests) != len(abis()) {
		t.Errorf("abis has %d architectures; the test covers %d", len(abis()), len(tests))
	}
	for goarch, calls := range tests {
		for _, denyUnix := range []bool{false, true} {
			ins, err := socketFilter(abis()[goarch], denyUnix)
			if err != nil {
				t.Fatalf("%s: %v", goarch, err)
			}
			if _, err := bpf.Assemble(ins); err != nil {
				t.Fatalf("%s: %v", goarch, err)
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatalf("%s: %v", goarch, err)
			}
			for _, c := range calls {
				want := c.want
				if denyUnix && c.denyUnix != 0 {
					want = c.denyUnix
				}
				got, err := vm.Run(seccompData(c.arch, c.nr, c.args...))
				if err != nil || uint32(got) != want {
					t.Errorf("%s deny-unix=%v %s: got %#x, %v; want %#x", goarch, denyUnix, c.name, got, err, want)
				}
			}
		}
	}
}

// processProbe tries every way the command could reach into the process
// pid (the one serving its proxy) and prints one line each: "refused" or
// what it got. It returns 0 when every way was refused.
func processProbe(pid string) int {
	tries := []struct {
		name string
		try  func() error
	}{
		{"mem", func() error { return openClose("/proc/"+pid+"/mem", os.O_RDWR) }},
		{"environ", func() error { return openClose("/proc/"+pid+"/environ", os.O_RDONLY) }},
		// The names in /proc/PID/fd are listed to the same uid; what
		// they lead to is the ptrace check's.
		{"fd/0", func() error { _, err := os.Readlink("/proc/" + pid + "/fd/0"); return err }},
		{"fd/0-open", func() error { return openClose("/proc/"+pid+"/fd/0", os.O_RDONLY) }},
		{"cwd", func() error { _, err := os.ReadDir("/proc/" + pid + "/cwd/"); return err }},
		{"root", func() error { _, err := os.ReadDir("/proc/" + pid + "/root/"); return err }},
		{"ptrace", func() error {
			n, _ := strconv.Atoi(pid)
			// PTRACE_SEIZE does not stop the process; the probe's exit
			// detaches it.
			_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(n), 0, 0, 0, 0)
			if errno != 0 {
				return errno
			}
			return nil
		}},
		{"process_vm_readv", func() error {
			n, _ := strconv.Atoi(pid)
			var b [8]byte
			local := []unix.Iovec{{Base: &b[0], Len: 8}}
			// Any address: refused access is EPERM, a bad address EFAULT.
			remote := []unix.RemoteIovec{{Base: 0x400000, Len: 8}}
			_, err := unix.ProcessVMReadv(n, local, remote, 0)
			if errors.Is(err, unix.EFAULT) {
				return nil
			}
			return err
		}},
	}
	code := 0
	for _, t := range tries {
		err := t.try()
		if err == nil {
			code = 1
			fmt.Println(t.name, "reached")
			continue
		}
		fmt.Println(t.name, "refused:", err)
		if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EACCES) {
			code = 1
		}
	}
	return code
}

func openClose(path string, flag int) error {
	f, err := os.OpenFile(path, flag, 0)
	if err == nil {
		f.Close()
	}
	return err
}

// TestProxyProcessOutOfReach: the command cannot reach into the process
// that serves its proxy (this one) — not its memory, its environment, its
// descriptors or its root and working directories through /proc, not by
// ptrace or process_vm_readv — although, as an ordinary user, it runs as
// the same uid (TestUnprivileged runs this as nobody): the proxy holds the
// rules it enforces in its memory and the workspace's files open. The
// command's own user namespace is what refuses it: the kernel lets a
// process of a child namespace trace one of the parent's only with
// CAP_SYS_PTRACE there, which it has not.
func TestProxyProcessOutOfReach(t *testing.T) {
	code, out := probe(t, "process "+strconv.Itoa(os.Getpid()), nil)
	if code != 0 {
		t.Errorf("the command reached the proxy's process (exit %d):\n%s", code, out)
	}
	for _, way := range []string{"mem", "environ", "fd/0", "fd/0-open", "root", "cwd", "ptrace", "process_vm_readv"} {
		if !strings.Contains(out, way+" refused") {
			t.Errorf("%s: not refused:\n%s", way, out)
		}
	}
}
