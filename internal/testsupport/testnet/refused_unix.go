//go:build unix

package testnet

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"
)

// refusedPort binds 127.0.0.1:0, then the same port on [::1]; if the
// second is taken it tries another port. Without an IPv6 loopback the
// port is held on 127.0.0.1 alone.
func refusedPort(t testing.TB) (uint16, error) {
	var last error
	for range 100 {
		close4, port, err := bindNoListen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0), false)
		if err != nil {
			return 0, err
		}
		close6, _, err := bindNoListen(netip.AddrPortFrom(netip.IPv6Loopback(), port), false)
		switch {
		case err == nil:
			t.Cleanup(func() { close4(); close6() })
			return port, nil
		case errors.Is(err, syscall.EADDRINUSE):
			close4()
			last = err
		default: // no IPv6 loopback: nothing can listen on [::1] either
			t.Cleanup(func() { close4() })
			return port, nil
		}
	}
	return 0, fmt.Errorf("every port tried is taken on [::1]: %w", last)
}

func holdRefused(t testing.TB, ap netip.AddrPort) bool {
	closeFn, _, err := bindNoListen(ap, true)
	if err != nil {
		return false
	}
	t.Cleanup(func() { closeFn() })
	return true
}

// bindNoListen binds a TCP socket to ap, with SO_REUSEADDR if reuse, and
// never listens on it. It returns the socket's close function and its
// port. Without SO_REUSEADDR no other socket can bind the port; with it,
// only one that sets it too and binds the port by number.
func bindNoListen(ap netip.AddrPort, reuse bool) (func() error, uint16, error) {
	family := syscall.AF_INET6
	var sa syscall.Sockaddr = &syscall.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	if ap.Addr().Is4() {
		family = syscall.AF_INET
		sa = &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	// Close-on-exec set under ForkLock, as package net does where
	// SOCK_CLOEXEC is missing: a child the test starts must not inherit
	// the socket (and hold the port past the test).
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, 0, fmt.Errorf("socket: %w", err)
	}
	if reuse {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
			syscall.Close(fd)
			return nil, 0, fmt.Errorf("SO_REUSEADDR: %w", err)
		}
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, 0, fmt.Errorf("bind %v: %w", ap, err)
	}
	got, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, 0, fmt.Errorf("getsockname: %w", err)
	}
	var port int
	switch a := got.(type) {
	case *syscall.SockaddrInet4:
		port = a.Port
	case *syscall.SockaddrInet6:
		port = a.Port
	}
	return func() error { return syscall.Close(fd) }, uint16(port), nil
}
