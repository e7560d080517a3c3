//go:build linux || freebsd || netbsd || dragonfly

package pdf

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// limitSelf sets the child's address-space limit and CPU limit (seconds;
// the hard limit one second later, so SIGXCPU comes first and SIGKILL
// after) before it reads anything. The address-space limit is memory bytes
// above what the process has already mapped: the Go runtime reserves
// address space it never touches (arenas, thread stacks), so a fixed
// limit would fail a child that has not started to work.
func limitSelf(memory int64, cpu int) error {
	as := uint64(mappedBytes() + memory)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, rlimit(as, as)); err != nil {
		return err
	}
	return syscall.Setrlimit(syscall.RLIMIT_CPU, rlimit(uint64(cpu), uint64(cpu+1)))
}

// mappedBytes is the process's virtual size, from /proc/self/statm where
// there is one; elsewhere 1 GiB is assumed for the runtime's reservations.
func mappedBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err == nil {
		if f, _, ok := bytes.Cut(b, []byte(" ")); ok {
			if pages, err := strconv.ParseInt(string(f), 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	return 1 << 30
}
