package egress_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
)

// staticResolver answers from a map, as a hostile or split-horizon DNS
// server might.
type staticResolver map[string][]netip.Addr

func (r staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func ExampleGuard_DialContext() {
	g := egress.NewGuard(&egress.Options{
		Resolver: staticResolver{
			"internal.example": {netip.MustParseAddr("10.0.0.1")},
			"mixed.example":    {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")},
		},
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("not reached: every name here is refused before dialing")
		},
	})
	for _, addr := range []string{"internal.example:443", "mixed.example:443", "[::ffff:127.0.0.1]:8080", "nx.example:443"} {
		_, err := g.DialContext(context.Background(), "tcp", addr)
		r, _ := refusal.As(err)
		fmt.Printf("%s: %s\n", r.Code, r.Message)
	}
	// Output:
	// address_not_public: internal.example resolves to 10.0.0.1, which is in 10.0.0.0/8 (private use)
	// address_not_public: mixed.example resolves to 169.254.169.254 (1 of 2 addresses), which is in 169.254.0.0/16 (link local)
	// address_not_public: ::ffff:127.0.0.1 is in 127.0.0.0/8 (loopback)
	// connection_failed: cannot resolve nx.example
}
