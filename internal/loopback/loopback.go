// Package loopback is the one check that a listener of ocfetch (the MCP
// server's --http, the proxy's --listen, ocfetch run's per-run proxy)
// serves this machine only, and the one [ErrNotLoopback].
package loopback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrNotLoopback is the error of every listen address that is not a
// loopback address. mcpserver.ErrNotLoopback is this value (exported for
// the MCP server's library callers); the proxy's errors wrap it.
var ErrNotLoopback = errors.New("not a loopback address: ocfetch's listeners serve this machine only (127.0.0.1:PORT, [::1]:PORT or localhost:PORT)")

// Host reports whether host names a loopback address and which: a literal
// in 127.0.0.0/8 or ::1 (IPv4-mapped forms unmapped, no zone), or
// "localhost" in any case, taken as 127.0.0.1 without asking DNS. An empty
// host (all interfaces) and any other name are not.
func Host(host string) (netip.Addr, bool) {
	if strings.EqualFold(host, "localhost") {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	ip = ip.Unmap()
	return ip, ip.IsLoopback()
}

// Check parses addr ("host:port") and returns the address to listen on
// (the loopback literal, port as written), or an error wrapping
// [ErrNotLoopback].
func Check(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrNotLoopback, addr, err)
	}
	ip, ok := Host(host)
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrNotLoopback, addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// Listen listens on addr after [Check]: never on another interface, and
// localhost never through DNS. Accepted connections have no TCP
// keep-alive: both ends are on this machine, whose kernel reports a peer
// gone at once, so the probes would detect nothing and their four
// setsockopt(2) per connection are spared (each server bounds idle
// connections with timeouts of its own).
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	bind, err := Check(addr)
	if err != nil {
		return nil, err
	}
	lc := net.ListenConfig{KeepAlive: -1}
	return lc.Listen(ctx, "tcp", bind)
}

// IsAddr reports whether a listener's address a is a loopback TCP address.
func IsAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		ap, err := netip.ParseAddrPort(a.String())
		return err == nil && ap.Addr().Unmap().IsLoopback()
	}
	ip, ok := netip.AddrFromSlice(tcp.IP)
	return ok && ip.Unmap().IsLoopback()
}
