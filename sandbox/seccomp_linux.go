//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The socket filter: a seccomp program, loaded by the namespace's first
// process just before it execs the command (and inherited by everything
// the command starts), that lets socket(2) and socketpair(2) make sockets
// of the families a program needs to reach the proxy and to work on one
// machine — AF_INET, AF_INET6, AF_UNIX and AF_NETLINK with the protocol
// NETLINK_ROUTE (interface and address queries) — and refuses every other
// family with EPERM: AF_VSOCK (which this kernel does not scope by network
// namespace: a way to the host or a VM's hypervisor), AF_PACKET, the other
// netlink protocols, Bluetooth, CAN and the rest. With deny-unix also
// socket(AF_UNIX) is refused, so no socket on the file system can be
// connected to; socketpair(AF_UNIX) stays allowed, as it reaches nothing.
//
// io_uring_setup(2) is refused with EPERM too: an io_uring's
// IORING_OP_SOCKET makes sockets without the socket system call.
//
// The program is written here with golang.org/x/net/bpf rather than
// github.com/elastic/go-seccomp-bpf: that library's policy filters the
// running architecture only and applies its default action (here: allow)
// to every other, which would let a 32-bit x86 program (int 0x80) on
// amd64 make any socket; and its conditional rules compare the next
// system call number with an accumulator that still holds an argument.
// This program covers each ABI the kernel accepts from such a process and
// kills a process that calls with any other.

// abi is the system call numbers of one calling convention.
type abi struct {
	name       string
	audit      uint32 // AUDIT_ARCH_*
	x32        bool   // amd64: numbers with __X32_SYSCALL_BIT are this ABI's too
	socket     uint32
	socketpair uint32
	socketcall uint32 // 0: the ABI has none
	ioUring    uint32 // io_uring_setup
}

// abis lists (built on first use: only ocfetch run needs it), per GOARCH, the native ABI first, then the compat ABI a
// process may also call with (32-bit x86 on amd64, AArch32 on arm64).
// The numbers are the kernel's (arch/x86/entry/syscalls/syscall_64.tbl
// and syscall_32.tbl, include/uapi/asm-generic/unistd.h,
// arch/arm/tools/syscall.tbl).
var abis = sync.OnceValue(func() map[string][]abi {
	return map[string][]abi{
		"amd64": {
			{name: "x86_64", audit: unix.AUDIT_ARCH_X86_64, x32: true, socket: 41, socketpair: 53, ioUring: 425},
			{name: "i386", audit: unix.AUDIT_ARCH_I386, socket: 359, socketpair: 360, socketcall: 102, ioUring: 425},
		},
		"arm64": {
			{name: "aarch64", audit: unix.AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199, ioUring: 425},
			{name: "arm", audit: unix.AUDIT_ARCH_ARM, socket: 281, socketpair: 288, ioUring: 425},
		},
	}
})

// Offsets in struct seccomp_data (little-endian: amd64 and arm64).
const (
	offNR   = 0
	offArch = 4
	offArgs = 16
)

// socketcall(2)'s call numbers that make sockets (linux/net.h).
const (
	sysSocket     = 1
	sysSocketpair = 8
)

const x32Bit = 0x40000000

var (
	retAllow = bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	retEPERM = bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)}
	retKill  = bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS}
)

// errNoSocketFilter: this architecture has no socket filter.
var errNoSocketFilter = errors.New("sandbox: no socket filter for " + runtime.GOARCH)

// program builds the instructions with forward jumps to labels, resolved
// by [program.assemble].
type program struct {
	ins    []bpf.Instruction
	jumps  []jump
	labels map[string]int
}

type jump struct {
	at          int
	true, false string // "" continues with the next instruction
}

func (p *program) add(in ...bpf.Instruction) { p.ins = append(p.ins, in...) }

// jeq jumps to t when A == v, else to f ("" = the next instruction).
func (p *program) jeq(v uint32, t, f string) {
	p.jumps = append(p.jumps, jump{at: len(p.ins), true: t, false: f})
	p.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: v})
}

func (p *program) label(name string) { p.labels[name] = len(p.ins) }

func (p *program) assemble() ([]bpf.Instruction, error) {
	skip := func(from int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := p.labels[name]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("sandbox: socket filter: bad jump to %q", name)
		}
		return uint8(to - from - 1), nil
	}
	for _, j := range p.jumps {
		in := p.ins[j.at].(bpf.JumpIf)
		var err error
		if in.SkipTrue, err = skip(j.at, j.true); err != nil {
			return nil, err
		}
		if in.SkipFalse, err = skip(j.at, j.false); err != nil {
			return nil, err
		}
		p.ins[j.at] = in
	}
	return p.ins, nil
}

// loadArg loads the low 32 bits of argument n into A, after checking
// that its high 32 bits are 0 (else: refused). The kernel reads these
// arguments as int; a value with high bits set is refused, not truncated.
func (p *program) loadArg(n int, deny string) {
	p.add(bpf.LoadAbsolute{Off: uint32(offArgs + 8*n + 4), Size: 4})
	p.jeq(0, "", deny)
	p.add(bpf.LoadAbsolute{Off: uint32(offArgs + 8*n), Size: 4})
}

// socketFilter returns the filter for the ABIs of one architecture.
func socketFilter(arches []abi, denyUnix bool) ([]bpf.Instruction, error) {
	p := &program{labels: map[string]int{}}
	p.add(bpf.LoadAbsolute{Off: offArch, Size: 4})
	for _, a := range arches {
		p.jeq(a.audit, a.name, "")
	}
	p.add(retKill) // an ABI the filter does not know
	for _, a := range arches {
		n := a.name
		p.label(n)
		p.add(bpf.LoadAbsolute{Off: offNR, Size: 4})
		if a.x32 {
			p.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ^uint32(x32Bit)})
		}
		p.jeq(a.socket, n+".socket", "")
		p.jeq(a.socketpair, n+".socketpair", "")
		if a.socketcall != 0 {
			p.jeq(a.socketcall, n+".socketcall", "")
		}
		p.jeq(a.ioUring, n+".deny", "")
		p.add(retAllow)

		p.label(n + ".socket")
		p.loadArg(0, n+".deny")
		local := n + ".allow"
		if denyUnix {
			local = n + ".deny"
		}
		p.jeq(unix.AF_UNIX, local, n+".family")

		p.label(n + ".socketpair")
		p.loadArg(0, n+".deny")
		p.jeq(unix.AF_UNIX, n+".allow", "")

		p.label(n + ".family")
		p.jeq(unix.AF_INET, n+".allow", "")
		p.jeq(unix.AF_INET6, n+".allow", "")
		p.jeq(unix.AF_NETLINK, "", n+".deny")
		p.loadArg(2, n+".deny")
		p.jeq(unix.NETLINK_ROUTE, n+".allow", n+".deny")

		if a.socketcall != 0 {
			// socketcall's arguments are in memory the filter cannot
			// read: making a socket through it is refused.
			p.label(n + ".socketcall")
			p.loadArg(0, n+".deny")
			p.jeq(sysSocket, n+".deny", "")
			p.jeq(sysSocketpair, n+".deny", n+".allow")
		}

		p.label(n + ".deny")
		p.add(retEPERM)
		p.label(n + ".allow")
		p.add(retAllow)
	}
	return p.assemble()
}

// confineSockets sets no_new_privs (required to load a filter without
// CAP_SYS_ADMIN, and so that no setuid or file-capability program gains
// anything afterwards) and loads the socket filter on every thread of
// this process (TSYNC), the calling goroutine locked to its thread, which
// is to exec the command next.
func confineSockets(denyUnix bool) error {
	runtime.LockOSThread() // not unlocked: this thread execs the command
	arches, ok := abis()[runtime.GOARCH]
	if !ok {
		return errNoSocketFilter
	}
	ins, err := socketFilter(arches, denyUnix)
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return fmt.Errorf("sandbox: socket filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	// With TSYNC a positive return is the id of a thread that could not
	// be synchronised.
	if r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("sandbox: load the socket filter: %w", errno)
	} else if r != 0 {
		return fmt.Errorf("sandbox: load the socket filter: thread %d cannot take it", r)
	}
	runtime.KeepAlive(filter)
	return nil
}
