//go:build linux || darwin || netbsd

package pdf

import "syscall"

// rlimit builds a syscall.Rlimit, whose fields are uint64 on this system.
func rlimit(cur, max uint64) *syscall.Rlimit {
	return &syscall.Rlimit{Cur: cur, Max: max}
}
