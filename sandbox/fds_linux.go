//go:build linux

package sandbox

import (
	"errors"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInheritedFDs marks every descriptor from 3 up close-on-exec, so the
// command inherits its standard streams and nothing else: not a socket
// the invoker left open without close-on-exec (an agent runtime's, a
// shell's `exec 7<>/dev/tcp/...`), which would otherwise cross the
// network namespace. This process keeps using its own descriptors until
// it execs. ocfetch hands the command no other descriptor.
//
// close_range(2) with CLOSE_RANGE_CLOEXEC does it in one call (Linux
// 5.11); before that each descriptor listed in /proc/self/fd is marked,
// and without /proc every number up to the descriptor limit.
func closeInheritedFDs() error {
	err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil || !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	if names, err := readFDDir(); err == nil {
		for _, name := range names {
			fd, err := strconv.Atoi(name)
			if err != nil || fd < 3 {
				continue
			}
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
				return err
			}
		}
		return nil
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	for fd := uint64(3); fd < lim.Cur && fd < 1<<20; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return err
		}
	}
	return nil
}

// readFDDir lists /proc/self/fd (its own descriptor is close-on-exec).
func readFDDir() ([]string, error) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
