package egress

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestUpstreamExcludeDialsDirect: a host on the exclusion list is dialled
// directly, every other public host through the upstream proxy as CONNECT
// to its checked address; an excluded name that resolves to a private
// address is refused by the guard all the same, reaching neither the proxy
// nor the dialer.
func TestUpstreamExcludeDialsDirect(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.NotFoundHandler(), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	excl, err := ParseUpstreamExclude([]string{"*.corp.example", "Intranet.Example.com", "93.184.216.40", "2001:4860::8888"})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard(&Options{
		Resolver: testnet.Resolver{
			"example.com":          {netip.MustParseAddr("93.184.216.34")},
			"a.corp.example":       {netip.MustParseAddr("93.184.216.35")},
			"deep.b.corp.example":  {netip.MustParseAddr("93.184.216.36")},
			"corp.example":         {netip.MustParseAddr("93.184.216.37")},
			"intranet.example.com": {netip.MustParseAddr("93.184.216.38")},
			"private.corp.example": {netip.MustParseAddr("10.0.0.5")},
			"meta.corp.example":    {netip.MustParseAddr("93.184.216.39"), netip.MustParseAddr("169.254.169.254")},
		},
		Dial:     pub.Dial,
		Timeout:  5 * time.Second,
		Upstream: &UpstreamProxy{Addr: proxy.Addr(), Exclude: excl},
	})
	tests := []struct {
		addr string
		via  string // "proxy", "direct", or a refusal code
	}{
		{"example.com:443", "proxy"},
		{"a.corp.example:443", "direct"},
		{"deep.b.corp.example:8443", "direct"},
		{"corp.example:443", "proxy"}, // *.corp.example is not the apex
		{"intranet.example.com:443", "direct"},
		{"93.184.216.40:443", "direct"},
		{"[2001:4860:0::8888]:443", "direct"},
		{"93.184.216.41:443", "proxy"},
		{"private.corp.example:443", string(refusal.AddressNotPublic)},
		{"meta.corp.example:443", string(refusal.AddressNotPublic)},
		{"10.0.0.5:443", string(refusal.AddressNotPublic)},
	}
	for _, tc := range tests {
		t.Run(tc.addr, func(t *testing.T) {
			beforeProxy, _ := proxy.Seen()
			beforeDials := pub.Dials.List()
			conn, err := g.DialContext(context.Background(), "tcp", tc.addr)
			if conn != nil {
				conn.Close()
			}
			afterProxy, _ := proxy.Seen()
			afterDials := pub.Dials.List()
			viaProxy, viaDial := len(afterProxy) > len(beforeProxy), len(afterDials) > len(beforeDials)
			switch tc.via {
			case "proxy":
				if err != nil || !viaProxy || viaDial {
					t.Errorf("err %v, via proxy %v, dialled directly %v; want through the proxy only", err, viaProxy, viaDial)
				}
			case "direct":
				if err != nil || viaProxy || !viaDial {
					t.Errorf("err %v, via proxy %v, dialled directly %v; want dialled directly only", err, viaProxy, viaDial)
				}
			default:
				if refusal.CodeOf(err) != refusal.Code(tc.via) || viaProxy || viaDial {
					t.Errorf("err %v, via proxy %v, dialled %v; want %s with nothing sent", err, viaProxy, viaDial, tc.via)
				}
			}
		})
	}
	if dials := pub.Dials.List(); !slices.Contains(dials, "93.184.216.35:443") || slices.Contains(dials, "93.184.216.34:443") {
		t.Errorf("direct dials %v; want the checked address of a.corp.example and not example.com's", dials)
	}
}

func TestParseUpstreamExclude(t *testing.T) {
	tests := []struct {
		in   []string
		want []string // patterns; nil with err
		err  string
	}{
		{[]string{"intranet.example.com"}, []string{"intranet.example.com"}, ""},
		{[]string{"*.Corp.Example", "*.corp.example"}, []string{"*.corp.example"}, ""},
		{[]string{"büro.example"}, []string{"xn--bro-hoa.example"}, ""},
		{[]string{"93.184.216.34", "2001:DB8::1"}, []string{"93.184.216.34", "2001:db8::1"}, ""},
		{nil, nil, ""},
		{[]string{""}, nil, "entry 1 \"\": empty"},
		{[]string{"ok.example", " "}, nil, "entry 2"},
		{[]string{"*"}, nil, "every host"},
		{[]string{".corp.example"}, nil, "write *.corp.example"},
		{[]string{"host.example:8080"}, nil, "without a port"},
		{[]string{"[::1]:443"}, nil, "without a port"},
		{[]string{"10.0.0.0/8"}, nil, "no scheme, path or CIDR"},
		{[]string{"http://proxy.example"}, nil, "no scheme, path or CIDR"},
		{[]string{"*.com"}, nil, "at least two labels"},
		{[]string{"*.co.uk"}, nil, "public suffix"},
		{[]string{"a*.example.com"}, nil, "allowed only as"},
		{[]string{"bad host.example"}, nil, "entry 1"},
		{slices.Repeat([]string{"a.example"}, MaxUpstreamExclude+1), nil, "at most 256"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.in, ","), func(t *testing.T) {
			got, err := ParseUpstreamExclude(tc.in)
			if tc.err != "" {
				if !errors.Is(err, ErrUpstreamExclude) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v; want ErrUpstreamExclude saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, p := range got {
				s = append(s, p.String())
			}
			if !slices.Equal(s, tc.want) {
				t.Errorf("got %q; want %q", s, tc.want)
			}
		})
	}
}

// FuzzParseUpstreamExclude: an entry is refused or becomes a pattern that
// reads back as itself, matches its own host (an exact one) and never
// holds a port, a slash or a bare '*'.
func FuzzParseUpstreamExclude(f *testing.F) {
	for _, s := range []string{"intranet.example.com", "*.corp.example", "*", ".x.example", "h:1", "[::1]", "10.0.0.0/8", "büro.example", "::ffff:1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		got, err := ParseUpstreamExclude([]string{entry})
		if err != nil {
			if !errors.Is(err, ErrUpstreamExclude) {
				t.Fatalf("error %v does not wrap ErrUpstreamExclude", err)
			}
			return
		}
		if len(got) != 1 {
			t.Fatalf("%d patterns for one entry", len(got))
		}
		p := got[0]
		if strings.ContainsAny(p.Host, "/*[]") || p.Host == "" {
			t.Fatalf("pattern %v from %q", p, entry)
		}
		again, err := capability.ParseHostPattern(p.String())
		if err != nil || again != p {
			t.Fatalf("pattern %v does not read back (%v, %v)", p, again, err)
		}
		if !p.Wildcard && !p.Match(p.Host) {
			t.Fatalf("exact pattern %v does not match its host", p)
		}
	})
}
