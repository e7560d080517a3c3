//go:build windows

package main

import (
	"syscall"
	"time"
)

// peakRSSKiB returns -1: the benchmark does not measure memory on Windows.
func peakRSSKiB() int64 { return -1 }

// cpuTime returns the process's user+system CPU time (GetProcessTimes).
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	_ = syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	return time.Duration(kernel.Nanoseconds() + user.Nanoseconds())
}
