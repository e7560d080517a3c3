//go:build windows

package testcpu

import (
	"syscall"
	"time"
)

// Now returns the process's user+system CPU time (GetProcessTimes).
func Now() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	_ = syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	return time.Duration(kernel.Nanoseconds() + user.Nanoseconds())
}
