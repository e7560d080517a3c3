package egress

import (
	"context"
	"net"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
)

// sinkListener accepts loopback connections and closes them: the target
// end of the dial benchmarks.
func sinkListener(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkDialUpstream is one guarded dial of a public name through a
// loopback upstream proxy (TCP connect + CONNECT exchange), next to the
// same dial straight to the target: the cost the proxy hop adds on top of
// the network's own round trips.
func BenchmarkDialUpstream(b *testing.B) {
	target := sinkListener(b)
	var d net.Dialer
	direct := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", target)
	}
	proxy := testnet.StartConnectProxy(b, target)
	for _, bc := range []struct {
		name string
		opts *Options
	}{
		{"direct", &Options{Resolver: publicResolver, Dial: direct}},
		{"upstream", &Options{Resolver: publicResolver, Upstream: &UpstreamProxy{Addr: proxy.Addr()}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g := NewGuard(bc.opts)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				c, err := g.DialContext(ctx, "tcp", "example.com:443")
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
