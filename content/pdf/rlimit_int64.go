//go:build freebsd || dragonfly

package pdf

import "syscall"

// rlimit builds a syscall.Rlimit, whose fields are int64 on this system.
func rlimit(cur, max uint64) *syscall.Rlimit {
	return &syscall.Rlimit{Cur: int64(cur), Max: int64(max)}
}
