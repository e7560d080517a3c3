//go:build windows

package proxy

import (
	"syscall"
	"time"
)

// cpuNow returns the process's user+system CPU time (GetProcessTimes).
// See the Unix version.
func cpuNow() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	_ = syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	return time.Duration(kernel.Nanoseconds() + user.Nanoseconds())
}
