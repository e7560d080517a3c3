package egress

import (
	"context"
	"errors"
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

// TestWithRequestTarget: the one layer answers as WithTarget then
// WithLoopback do — the target carried, local mode's admission of it only
// when local, and no admission the caller's ctx carried when not — in one
// allocation, and passes its parent's cancellation on.
func TestWithRequestTarget(t *testing.T) {
	local := capability.MustTarget("localhost", 3000)
	public := capability.MustTarget("example.com", 443)
	// The caller's ctx admits another loopback port: a public request
	// must not inherit it.
	parent := WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", 8080))
	for _, tc := range []struct {
		name      string
		target    *capability.Target
		local     bool
		wantAdmit capability.Target
		wantOK    bool
	}{
		{"local admits its own target", &local, true, local, true},
		{"public admits nothing, whatever the caller's ctx", &public, false, capability.Target{}, false},
		{"a public loopback target is not admitted", &local, false, capability.Target{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := WithRequestTarget(parent, tc.target, tc.local)
			var want context.Context = WithTarget(parent, tc.target)
			if tc.local {
				want = WithLoopback(want, *tc.target)
			} else {
				want = WithLoopback(want, capability.Target{})
			}
			got, ok := Loopback(ctx)
			wantGot, wantOK := Loopback(want)
			if got != tc.wantAdmit || ok != tc.wantOK || got != wantGot || ok != wantOK {
				t.Errorf("Loopback = %v, %v; want %v, %v (two layers: %v, %v)", got, ok, tc.wantAdmit, tc.wantOK, wantGot, wantOK)
			}
			if h, err := normalizedHost(ctx, tc.target.Host(), tc.target.Port()); err != nil || h != tc.target.Host() {
				t.Errorf("normalizedHost = %q, %v; want the carried %q", h, err, tc.target.Host())
			}
			if p, _ := ctx.Value(targetKey{}).(*capability.Target); p != tc.target {
				t.Errorf("carried target %p; want %p", p, tc.target)
			}
		})
	}

	t.Run("one allocation", func(t *testing.T) {
		if n := testing.AllocsPerRun(100, func() { requestCtxSink = WithRequestTarget(parent, &local, true) }); n != 1 {
			t.Errorf("%v allocations; want 1", n)
		}
	})

	t.Run("cancellation passes through", func(t *testing.T) {
		base, cancel := context.WithCancel(parent)
		child, stop := context.WithCancel(WithRequestTarget(base, &local, true))
		defer stop()
		cancel()
		<-child.Done() // a hang here fails the test by its timeout
		if !errors.Is(child.Err(), context.Canceled) {
			t.Errorf("child.Err() = %v; want context.Canceled", child.Err())
		}
	})
}

// requestCtxSink keeps the context of the allocation count on the heap, as
// a request's is.
var requestCtxSink context.Context
