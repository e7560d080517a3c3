//go:build unix

package main

import (
	"syscall"
	"time"
)

// peakRSSKiB returns the process's peak resident set size. getrusage's
// ru_maxrss is KiB on Linux and FreeBSD, bytes on macOS.
func peakRSSKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	if isDarwin {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
