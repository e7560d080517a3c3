// Package guard measures ocfetch's dial-time check (egress.ControlContext,
// the Control function of the Guard's default dialer) side by side with
// code.dny.dev/ssrf's Guardian.Safe, in one run. It is its own module so
// that ssrf never becomes a dependency of ocfetch.
//
//	cd bench/guard && go test -run '^$' -bench . -benchmem -count 5
package guard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"code.dny.dev/ssrf"
	"github.com/ocfetch/ocfetch/egress"
)

type nopResolver struct{}

func (nopResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no DNS in this benchmark")
}

var errCaptured = errors.New("captured")

// guardContext returns the context a Guard hands its dialer for a dial of
// address (an IP literal), wrapped in a deadline as net.Dialer wraps it
// before its Control function runs: what ControlContext sees in a real
// dial.
func guardContext(b *testing.B, network, address string) context.Context {
	var got context.Context
	g := egress.NewGuard(&egress.Options{Resolver: nopResolver{}, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		got = ctx
		return nil, errCaptured
	}})
	if _, err := g.DialContext(context.Background(), network, address); got == nil {
		b.Fatalf("the guard did not dial %s: %v", address, err)
	}
	ctx, cancel := context.WithTimeout(got, time.Minute)
	b.Cleanup(cancel)
	return ctx
}

var cases = []struct {
	name, network, address string
	public                 bool
}{
	{"ipv4-public", "tcp4", "93.184.216.34:443", true},
	{"ipv6-public", "tcp6", "[2606:4700:4700::1111]:443", true},
	{"ipv4-refused", "tcp4", "169.254.169.254:443", false},
	{"ipv4-refused-private", "tcp4", "10.20.30.40:443", false},
	{"ipv6-refused", "tcp6", "[fd00:ec2::254]:443", false},
	{"ipv6-refused-documentation", "tcp6", "[2001:db8::1]:443", false},
}

var sink error

func BenchmarkCheck(b *testing.B) {
	guardian := ssrf.New()
	for _, tc := range cases {
		check := func(b *testing.B, err error) {
			if (err == nil) != tc.public {
				b.Fatalf("%s: err = %v; want public = %t", tc.address, err, tc.public)
			}
		}
		b.Run(tc.name+"/ssrf", func(b *testing.B) {
			check(b, guardian.Safe(tc.network, tc.address, nil))
			b.ReportAllocs()
			for b.Loop() {
				sink = guardian.Safe(tc.network, tc.address, nil)
			}
		})
		b.Run(tc.name+"/ocfetch", func(b *testing.B) {
			ctx := context.Background()
			check(b, egress.ControlContext(ctx, tc.network, tc.address, nil))
			b.ReportAllocs()
			for b.Loop() {
				sink = egress.ControlContext(ctx, tc.network, tc.address, nil)
			}
		})
		if tc.public {
			// The Guard refuses a non-public literal before it dials, so only
			// public addresses reach the Control check with a carried literal.
			b.Run(tc.name+"/ocfetch-guard-dial", func(b *testing.B) {
				ctx := guardContext(b, tc.network, tc.address)
				check(b, egress.ControlContext(ctx, tc.network, tc.address, nil))
				b.ReportAllocs()
				for b.Loop() {
					sink = egress.ControlContext(ctx, tc.network, tc.address, nil)
				}
			})
		}
	}
}
