//go:build !unix && !windows

package egress

import "syscall"

func errnoCause(syscall.Errno) Cause { return "" }
