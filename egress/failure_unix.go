//go:build unix

package egress

import "syscall"

func errnoCause(e syscall.Errno) Cause {
	switch e {
	case syscall.ECONNREFUSED:
		return CauseRefused
	case syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE:
		return CauseReset
	case syscall.EHOSTUNREACH:
		return CauseNoRoute
	case syscall.ENETUNREACH:
		return CauseNetUnreachable
	}
	return ""
}
