//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set of an ended child, in KiB (Linux's
// ru_maxrss unit).
func maxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
