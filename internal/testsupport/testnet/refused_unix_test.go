//go:build unix

package testnet

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"testing"
)

// TestRefusedPort: a connect to the port is refused on 127.0.0.1 and on
// ::1 (where there is one), and no listener can take the port meanwhile —
// not even one with SO_REUSEADDR, as package net's listeners have.
func TestRefusedPort(t *testing.T) {
	port := RefusedPort(t)
	ps := strconv.Itoa(int(port))
	addrs := []string{"127.0.0.1:" + ps}
	if ln, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		ln.Close()
		addrs = append(addrs, "[::1]:"+ps)
	}
	for _, a := range addrs {
		if c, err := net.Dial("tcp", a); !errors.Is(err, syscall.ECONNREFUSED) {
			if err == nil {
				c.Close()
			}
			t.Errorf("dial %s: %v; want connection refused", a, err)
		}
		if ln, err := net.Listen("tcp", a); !errors.Is(err, syscall.EADDRINUSE) {
			if err == nil {
				ln.Close()
			}
			t.Errorf("listen %s: %v; want address in use", a, err)
		}
	}
}

// TestHoldRefused: a held address refuses connects; an address already
// listened on is not held.
func TestHoldRefused(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := netip.MustParseAddrPort(ln.Addr().String())
	if HoldRefused(t, taken) {
		t.Errorf("HoldRefused(%v) held an address a listener has", taken)
	}
	port := RefusedPort(t)
	// RefusedPort holds 127.0.0.1:port; 127.0.0.2 is loopback, another address.
	ap := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), port)
	if !HoldRefused(t, ap) {
		t.Skipf("%v is taken", ap)
	}
	if c, err := net.Dial("tcp", ap.String()); !errors.Is(err, syscall.ECONNREFUSED) {
		if err == nil {
			c.Close()
		}
		t.Errorf("dial %v: %v; want connection refused", ap, err)
	}
}
