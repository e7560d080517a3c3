package egress

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestWithTargetAdmitsNothing: a carried target only spares the guard a
// second normalisation of the host it names; every check still applies,
// and another address is normalised as ever. Nothing is dialled: every
// case is refused before a connection, and the dial function fails the
// test if reached.
func TestWithTargetAdmitsNothing(t *testing.T) {
	g := NewGuard(&Options{
		Resolver: testnet.Resolver{"internal.test": {netip.MustParseAddr("10.0.0.1")}},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			t.Errorf("dialled %s; want every case refused before a connection", addr)
			return nil, refusal.New(refusal.ConnectionFailed, "test dial")
		},
	})
	for _, tc := range []struct {
		name    string
		carried capability.Target
		address string
		want    refusal.Code
		norms   int64 // NormalizeHost calls by the guard
	}{
		{"a loopback literal carried is still refused", capability.MustTarget("127.0.0.1", 8080), "127.0.0.1:8080", refusal.AddressNotPublic, 0},
		{"a carried name resolving to a private address is refused", capability.MustTarget("internal.test", 443), "internal.test:443", refusal.AddressNotPublic, 0},
		{"localhost carried is refused without local mode", capability.MustTarget("localhost", 3000), "localhost:3000", refusal.AddressNotPublic, 0},
		{"another host is normalised", capability.MustTarget("example.com", 443), "INTERNAL.test:443", refusal.AddressNotPublic, 1},
		{"another port is normalised", capability.MustTarget("internal.test", 443), "internal.test:8443", refusal.AddressNotPublic, 1},
		{"an invalid host is still refused", capability.MustTarget("example.com", 443), "127.1:443", refusal.InvalidHost, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count, stop := capability.CountNormalizations()
			defer stop()
			_, err := g.DialContext(WithTarget(context.Background(), &tc.carried), "tcp", tc.address)
			if got := refusal.CodeOf(err); got != tc.want {
				t.Errorf("DialContext(%s) = %v; want %s", tc.address, err, tc.want)
			}
			if n := count(); n != tc.norms {
				t.Errorf("NormalizeHost ran %d times; want %d", n, tc.norms)
			}
		})
	}
}
