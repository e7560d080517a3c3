//go:build windows

package egress

import "syscall"

// The Winsock error numbers (winerror.h); syscall names only some of them.
const (
	wsaeConnAborted = 10053
	wsaeConnReset   = 10054
	wsaeNetUnreach  = 10051
	wsaeConnRefused = 10061
	wsaeHostUnreach = 10065
)

func errnoCause(e syscall.Errno) Cause {
	switch e {
	case wsaeConnRefused:
		return CauseRefused
	case wsaeConnReset, wsaeConnAborted:
		return CauseReset
	case wsaeHostUnreach:
		return CauseNoRoute
	case wsaeNetUnreach:
		return CauseNetUnreachable
	}
	return ""
}
