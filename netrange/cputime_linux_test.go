package netrange

import "syscall"

// threadCPU returns the CPU time the calling OS thread has used, so that a
// benchmark on a shared, overloaded machine can report its cost apart from
// the time it spent waiting for a CPU.
func threadCPU() (ns int64, ok bool) {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
