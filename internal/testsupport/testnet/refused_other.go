//go:build !unix

package testnet

import (
	"net"
	"net/netip"
	"testing"
)

// Off unix (where CI runs no tests) a port is only checked free, with a
// listener closed at once: it is refused only until someone else binds
// it, the race RefusedPort and HoldRefused avoid on unix.

func refusedPort(testing.TB) (uint16, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	ln.Close()
	return uint16(ln.Addr().(*net.TCPAddr).Port), nil
}

func holdRefused(_ testing.TB, ap netip.AddrPort) bool {
	ln, err := net.Listen("tcp", ap.String())
	if err != nil {
		return false
	}
	ln.Close()
	return true
}
