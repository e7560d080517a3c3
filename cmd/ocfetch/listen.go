package main

import (
	"errors"
	"net"
	"strconv"
	"syscall"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/safetext"
)

// Winsock's numbers for the listen failures (winerror.h); on Unix these
// values are no errno, so one check serves both.
const (
	wsaeAddrInUse    = 10048
	wsaeAddrNotAvail = 10049
	wsaeAccess       = 10013
)

// listenError turns a failure to listen on addr into the one line and hint
// a user can act on: which address, what is wrong, and the flag to change
// (flag is "--http" or "--listen"). It returns nil when err is not a
// listen failure it recognises; the caller reports err as before then.
func listenError(flag, addr string, err error) *exitError {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return nil
	}
	free := "pick another port, or " + flag + " 127.0.0.1:0 for a free one"
	switch {
	case errno == syscall.EADDRINUSE || errno == wsaeAddrInUse:
		return &exitError{code: exitInternal, err: err,
			msg:  "cannot listen on " + addr + ": the address is already in use (another ocfetch, or another server, holds the port)",
			hint: "stop the other server, or " + free}
	case errno == syscall.EACCES || errno == wsaeAccess:
		return &exitError{code: exitInternal, err: err,
			msg:  "cannot listen on " + addr + ": permission denied (ports below 1024 need privileges)",
			hint: free}
	case errno == syscall.EADDRNOTAVAIL || errno == wsaeAddrNotAvail:
		return &exitError{code: exitInternal, err: err,
			msg:  "cannot listen on " + addr + ": the address is not one of this machine's",
			hint: "use " + flag + " 127.0.0.1:PORT"}
	}
	return nil
}

// checkListenFlag checks the loopback address a listener flag names
// (flag is "--http" or "--listen") before anything is created for it: a
// host:port whose host is localhost or a loopback IP literal and whose
// port is a number from 0 to 65535. A bad one is a usage error (exit 2)
// naming the address and the fix, never a Go error from the package that
// would have failed.
func checkListenFlag(flag, addr string) *exitError {
	fix := "use " + flag + " 127.0.0.1:PORT (port 0 picks a free one)"
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf(fix, "%s %s is not HOST:PORT", flag, safetext.ShellQuote(addr))
	}
	if port != "0" {
		// Port 0 picks a free one; any other goes through the one port
		// parser, which also names a leading zero ("08931").
		if _, err := capability.ParsePort(port); err != nil {
			if _, nerr := strconv.ParseUint(port, 10, 16); nerr == nil {
				return usageErrorf(fix, "%s %s: %v", flag, safetext.ShellQuote(addr), err)
			}
			return usageErrorf(fix, "%s %s: the port must be a number from 0 to 65535", flag, safetext.ShellQuote(addr))
		}
	}
	if _, ok := loopback.Host(host); !ok {
		return usageErrorf(fix, "%s %s is not a loopback address: ocfetch's listeners serve this machine only", flag, safetext.ShellQuote(addr))
	}
	return nil
}
