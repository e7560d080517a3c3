//go:build darwin

package pdf

import "syscall"

// limitSelf sets the child's CPU limit (seconds; the hard limit one second
// later, so SIGXCPU comes first and SIGKILL after) before it reads
// anything. Its address space is not limited: macOS does not enforce
// RLIMIT_AS, and refuses (EINVAL) any value below the virtual size a
// process already has — hundreds of GiB, the shared cache's — so the
// child would never extract. Memory is bounded, as on Windows, by the
// child's soft Go memory limit and the kill at the call's deadline.
func limitSelf(_ int64, cpu int) error {
	return syscall.Setrlimit(syscall.RLIMIT_CPU, rlimit(uint64(cpu), uint64(cpu+1)))
}
