//go:build unix && !linux

package testcpu

import (
	"syscall"
	"time"
)

// Now returns the process's user+system CPU time (getrusage, in whole
// microseconds on most systems).
func Now() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
