package startpages

import (
	"syscall"
	_ "unsafe" // for go:linkname
)

// SlowFault is the cost of one page fault, in nanoseconds, from which init
// prefaults. A prefault maps some 5,000 pages of the binary and zeroes the
// heap's first chunk to spare about 500 faults, so it pays only where a
// fault is dear: on the project's benchmark VM of 2026-12-02 (a fault
// about 20 µs, a trip through the hypervisor) it made `ocfetch get` 2.7 ms
// faster; on a host whose faults take 1–4 µs it made it 0.9 ms slower
// (docs/PERFORMANCE.md). 8 µs lies between the two with a margin on
// either side.
const SlowFault = 8000

// probeFaults is how many faults [faultCost] times; the least counts, so
// that one preempted probe does not make a fast host look slow.
const probeFaults = 8

// faultWindow is the span the kernel maps around one fault of a file
// (fault_around_bytes, 64 KiB unless tuned): reads this far apart in a
// fresh mapping are separate faults.
const faultWindow = 64 << 10

// probeSink keeps the probes' reads from being optimised away: a load
// whose value is never used is dropped by the compiler, and the fault with
// it; a store to a package variable is not.
//
//lint:ignore U1000 written, never read, on purpose (see above)
var probeSink byte

// faultCost times the kind of fault a prefault spares: it maps the file
// at exe (the running binary, whose first pages are in the page cache)
// afresh, reads one byte in each of up to [probeFaults] fault windows,
// and returns the least time one read took, in nanoseconds. It returns -1,
// having measured nothing, when the file cannot be opened or mapped or is
// shorter than one window. The mapping is removed before it returns.
func faultCost(exe string) int64 {
	fd, err := syscall.Open(exe, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return -1
	}
	n := min(int64(probeFaults), st.Size/faultWindow)
	if n <= 0 {
		return -1
	}
	mem, err := syscall.Mmap(fd, 0, int(n)*faultWindow, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return -1
	}
	defer syscall.Munmap(mem)
	least := int64(-1)
	for i := range int(n) {
		start := monotonic()
		probeSink += mem[i*faultWindow]
		if d := monotonic() - start; least < 0 || d < least {
			least = d
		}
	}
	return least
}

// worthPrefaulting reports whether a fault that costs cost ns (-1:
// unknown) is dear enough for init to prefault.
func worthPrefaulting(cost int64) bool { return cost >= SlowFault }

// monotonic is the runtime's monotonic clock in nanoseconds, the one
// package time reads (time is not imported here: see the package
// documentation). It makes no system call where the kernel offers the
// vDSO: a system call's own cost would count as fault time (about 7 µs on
// a 32-bit build under a hypervisor, 0.1 µs on amd64), and a seccomp
// filter written for ordinary programs may not allow clock_gettime. The
// runtime keeps runtime.nanotime linkable for this (go.dev/issue/67401).
//
//go:linkname monotonic runtime.nanotime
func monotonic() int64
