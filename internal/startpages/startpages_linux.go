package startpages

import (
	"syscall"
	"unsafe"
)

// The madvise advice values of Linux 5.14 (not in package syscall).
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

// Release drops the page-table entries of the binary's read-only
// mappings, so that the server's resident set holds the code and data it
// runs from now on, not its start-up's (see the package documentation).
// A server calls it once, when it starts serving. A mapping that holds a
// private copy of any page is left alone: the dynamic loader's
// relocations in a read-only-after-relocation segment (a PIE or cgo
// build), a debugger's breakpoint, a uprobe — dropping it would bring
// back the file's bytes.
func Release() {
	b := make([]byte, smapsBytes)
	for _, r := range releasable(readFileInto(b, "/proc/self/smaps")) {
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_DONTNEED)
	}
}

// smapsBytes bounds what Release reads of /proc/self/smaps (some 25 lines
// a mapping): the executable's mappings come first in a static or PIE
// binary's, and a mapping cut off is not released.
const smapsBytes = 256 << 10

// buf holds /proc/self/cmdline and /proc/self/maps while init reads them:
// a static buffer, so that reading allocates nothing on the heap being
// prefaulted. A maps file longer than this (a static binary's has about
// 25 lines) is read in part, which only prefaults less.
var buf [16 << 10]byte

// heapProbe is one small heap object whose address tells which mapping is
// the heap.
var heapProbe *[16]byte

// init prefaults a one-shot command where page faults are dear (see the
// package documentation).
func init() {
	if _, child := syscall.Getenv(ReexecEnv); child {
		return
	}
	if !oneShot(commandLine(readFileInto(buf[:], "/proc/self/cmdline"))) {
		return
	}
	if !worthPrefaulting(faultCost("/proc/self/exe")) {
		return
	}
	heapProbe = new([16]byte)
	for _, r := range regions(readFileInto(buf[:], "/proc/self/maps"), uintptr(unsafe.Pointer(heapProbe))) {
		populate(r) // a hint: an error (an older kernel) changes nothing
	}
}

// populate asks the kernel to map r's pages now.
func populate(r region) error {
	advice := madvPopulateRead
	if r.write {
		advice = madvPopulateWrite
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
}

// readFileInto reads name into buf and returns what it read (nil on an
// error; at most len(buf) bytes).
func readFileInto(buf []byte, name string) []byte {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return buf[:n]
}

// commandLine splits /proc/self/cmdline (arguments ended by NUL) and drops
// the program's name.
func commandLine(b []byte) []string {
	var args []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		args = append(args, string(b[:i]))
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	if len(args) > 0 {
		args = args[1:]
	}
	return args
}
