package egress

import (
	"context"
	"net/netip"

	"github.com/ocfetch/ocfetch/capability"
)

type loopbackKey struct{}

var (
	loopback4 = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	loopback6 = netip.IPv6Loopback()
)

// WithLoopback returns a context carrying local mode's admission of t (one
// of localhost, 127.0.0.1 or ::1, on an admitted port): a Guard given this
// context dials, for that host and port only, the loopback address written
// — 127.0.0.1 over IPv4 only, ::1 over IPv6 only, localhost 127.0.0.1 then
// ::1 — so that a process listening on the other address family is never
// reached. It is set from policy.Decide's admission (Decision.Target and
// LoopbackPort, carried to the transport) and by nothing else. A target that is not a local host, or port 0, admits
// nothing.
func WithLoopback(ctx context.Context, t capability.Target) context.Context {
	return context.WithValue(ctx, loopbackKey{}, &t)
}

// Loopback returns local mode's admission on ctx ([WithLoopback]), if it
// admits anything.
func Loopback(ctx context.Context) (capability.Target, bool) {
	p, ok := ctx.Value(loopbackKey{}).(*capability.Target)
	if !ok || p == nil {
		return capability.Target{}, false
	}
	t := *p
	return t, t.Port() != 0 && capability.IsLocalHost(t.Host())
}

// admittedLoopback returns the loopback addresses the Guard may dial for
// host and port under ctx's admission, in order, or nil when ctx admits
// nothing for them.
func admittedLoopback(ctx context.Context, host string, port uint16) []netip.Addr {
	t, ok := Loopback(ctx)
	if !ok || t.Port() != port || t.Host() != host {
		return nil
	}
	return loopbackAddrs(host)
}

// loopbackAddrs is item 5 of issue 11: the address written, and for
// localhost both, IPv4 first.
func loopbackAddrs(host string) []netip.Addr {
	switch host {
	case capability.Loopback4:
		return []netip.Addr{loopback4}
	case capability.Loopback6:
		return []netip.Addr{loopback6}
	case capability.LocalhostName:
		return []netip.Addr{loopback4, loopback6}
	}
	return nil
}
