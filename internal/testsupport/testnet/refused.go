package testnet

import (
	"net/netip"
	"testing"
)

// RefusedPort returns a loopback TCP port on which every connect is
// refused until the test ends: on 127.0.0.1 and, where the machine has an
// IPv6 loopback, on ::1 too, so that "localhost" is refused as well.
//
// A listener closed at once does not give such a port: its port is free
// again, and another test or process may bind it before the test's dial
// (which then connects, or reaches someone else's server). Here, on unix,
// a socket holds the port bound and never listens: the kernel answers a
// SYN to it with a reset, and no other socket can bind the port, for this
// one is bound without SO_REUSEADDR. The sockets are closed by the test's
// cleanup.
func RefusedPort(t testing.TB) uint16 {
	t.Helper()
	port, err := refusedPort(t)
	if err != nil {
		t.Fatalf("testnet: no refused loopback port: %v", err)
	}
	return port
}

// HoldRefused holds the loopback address ap bound, never listening, until
// the test ends, so a connect to it is refused. It reports false, holding
// nothing, if ap is taken. On unix the socket is bound with SO_REUSEADDR,
// as package net's listeners are, so that a port a listener could take (one
// left in TIME_WAIT by a server's connection) is held as well: then no
// socket given a port by the kernel (bound to port 0) gets it, but one
// bound with SO_REUSEADDR to this very address could still listen there.
func HoldRefused(t testing.TB, ap netip.AddrPort) bool {
	t.Helper()
	if !ap.Addr().IsLoopback() {
		t.Fatalf("testnet: HoldRefused(%v): not a loopback address", ap)
	}
	return holdRefused(t, ap)
}
