package egress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/ocfetch/ocfetch/capability"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// wantRefusal checks that err is a *refusal.Error with code and a message
// containing every one of parts.
func wantRefusal(t *testing.T, err error, code refusal.Code, parts ...string) *refusal.Error {
	t.Helper()
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("got error %v; want a *refusal.Error %s", err, code)
	}
	if r.Code != code {
		t.Errorf("got code %s (%q); want %s", r.Code, r.Message, code)
	}
	for _, p := range parts {
		if !strings.Contains(r.Message, p) {
			t.Errorf("message %q does not contain %q", r.Message, p)
		}
	}
	return r
}

func TestDialRefusesPrivateAnswerBeforeDial(t *testing.T) {
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"internal.test": {"10.0.0.1"}}),
		Dial:     noDial(t),
	})
	conn, err := g.DialContext(context.Background(), "tcp", "internal.test:443")
	if conn != nil {
		conn.Close()
	}
	r := wantRefusal(t, err, refusal.AddressNotPublic)
	if want := "internal.test resolves to 10.0.0.1, which is in 10.0.0.0/8 (private use)"; r.Message != want {
		t.Errorf("message = %q; want %q", r.Message, want)
	}
	if r.Hint == "" {
		t.Errorf("refusal has no hint")
	}
}

// TestDialRefusesNonPublicAnswers: one non-public answer refuses the whole
// name, and the message says which answer.
func TestDialRefusesNonPublicAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string
		want    string
	}{
		{"mapped loopback", []string{"::ffff:127.0.0.1"}, "::ffff:127.0.0.1, which is in 127.0.0.0/8 (loopback)"},
		{"this host", []string{"0.0.0.0"}, "0.0.0.0, which is in 0.0.0.0/32"},
		{"unspecified IPv6", []string{"::"}, "::, which is in ::/128 (unspecified)"},
		{"metadata after a public answer", []string{"93.184.216.34", "169.254.169.254"}, "169.254.169.254 (1 of 2 addresses), which is in 169.254.0.0/16 (link local)"},
		{"private before a public answer", []string{"192.168.1.1", "93.184.216.34"}, "192.168.1.1"},
		{"IPv6 metadata", []string{"2606:4700:4700::1111", "fd00:ec2::254"}, "fd00:ec2::254 (1 of 2 addresses), which is in fc00::/7 (unique local)"},
		{"6to4 embedding loopback", []string{"2002:7f00:1::1"}, "2002::/16 (6to4)"},
		{"NAT64 embedding metadata", []string{"64:ff9b::a9fe:a9fe"}, "64:ff9b::/96 (NAT64)"},
		{"zoned link local", []string{"fe80::1%eth0"}, "fe80::/10 (link local)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGuard(&Options{
				Resolver: newMapResolver(map[string][]string{"evil.test": tc.answers}),
				Dial:     noDial(t),
			})
			_, err := g.DialContext(context.Background(), "tcp", "evil.test:443")
			wantRefusal(t, err, refusal.AddressNotPublic, "evil.test resolves to", tc.want)
		})
	}
}

// TestDialRebinding: the second resolution of the same name answers a
// private address; the guard checks every resolution, so the second dial
// is refused.
func TestDialRebinding(t *testing.T) {
	p1, p2 := net.Pipe()
	defer p2.Close()
	var dialed []string
	g := NewGuard(&Options{
		Resolver: &seqResolver{answers: [][]netip.Addr{
			{netip.MustParseAddr("93.184.216.34")},
			{netip.MustParseAddr("10.0.0.1")},
		}},
		Dial: func(_ context.Context, _, address string) (net.Conn, error) {
			dialed = append(dialed, address)
			if address != "93.184.216.34:443" {
				t.Errorf("dial called with %s; want only 93.184.216.34:443", address)
			}
			return p1, nil
		},
	})
	conn, err := g.DialContext(context.Background(), "tcp", "rebind.test:443")
	if err != nil {
		t.Fatalf("first dial: %v", err)
	}
	conn.Close()
	_, err = g.DialContext(context.Background(), "tcp", "rebind.test:443")
	wantRefusal(t, err, refusal.AddressNotPublic, "rebind.test resolves to 10.0.0.1")
	if diff := cmp.Diff([]string{"93.184.216.34:443"}, dialed); diff != "" {
		t.Errorf("dialed addresses (-want +got):\n%s", diff)
	}
}

// TestDialLookAlikes: a look-alike spelling of a loopback address or name
// is refused as invalid_host before anything is resolved or dialled.
func TestDialLookAlikes(t *testing.T) {
	for _, address := range []string{"１２７.０.０.１:80", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:8080", "localho\u017ft:8080"} {
		t.Run(address, func(t *testing.T) {
			g := NewGuard(&Options{Resolver: failResolver{t}, Dial: noDial(t)})
			_, err := g.DialContext(context.Background(), "tcp", address)
			wantRefusal(t, err, refusal.InvalidHost, "write it in ASCII")
		})
	}
}

func TestDialLiterals(t *testing.T) {
	for _, tc := range []struct {
		address string
		want    string // refusal message part
	}{
		{"10.0.0.1:443", "10.0.0.1 is in 10.0.0.0/8 (private use)"},
		{"169.254.169.254:80", "169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{"[::ffff:169.254.169.254]:80", "::ffff:169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{"127.0.0.1:8080", "127.0.0.1 is in 127.0.0.0/8 (loopback)"},
		{"[::1]:8080", "::1 is in ::1/128 (loopback)"},
		{"[0:0:0:0:0:0:0:1]:8080", "::1 is in ::1/128 (loopback)"},
		{"0.0.0.0:80", "0.0.0.0 is in 0.0.0.0/32"},
		{"[::]:80", ":: is in ::/128 (unspecified)"},
		{"100.100.100.200:80", "100.64.0.0/10"},
		{"192.0.0.192:80", "192.0.0.0/24 (IETF protocol assignments)"},
		{"[fd00:ec2::254]:80", "fc00::/7 (unique local)"},
		{"localhost:8080", "localhost is a loopback name"},
		{"LOCALHOST.:8080", "localhost is a loopback name"},
		{"db.localhost:5432", "db.localhost is a loopback name"},
	} {
		t.Run(tc.address, func(t *testing.T) {
			g := NewGuard(&Options{Resolver: failResolver{t}, Dial: noDial(t)})
			_, err := g.DialContext(context.Background(), "tcp", tc.address)
			wantRefusal(t, err, refusal.AddressNotPublic, tc.want)
		})
	}
}

func TestDialPublicLiteral(t *testing.T) {
	p1, p2 := net.Pipe()
	defer p2.Close()
	var got []string
	g := NewGuard(&Options{
		Resolver: failResolver{t},
		Dial: func(_ context.Context, network, address string) (net.Conn, error) {
			got = append(got, network+" "+address)
			return p1, nil
		},
	})
	for _, addr := range []string{"93.184.216.34:443", "[2606:4700:4700::1111]:443", "[::ffff:8.8.8.8]:53"} {
		conn, err := g.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatalf("DialContext(%s): %v", addr, err)
		}
		if conn != p1 {
			t.Errorf("DialContext(%s) returned another conn than the dialer's", addr)
		}
	}
	p1.Close()
	want := []string{"tcp 93.184.216.34:443", "tcp [2606:4700:4700::1111]:443", "tcp 8.8.8.8:53"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

func TestDialInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		network, address string
		code             refusal.Code
	}{
		{"udp", "93.184.216.34:53", refusal.InvalidArguments},
		{"unix", "/run/docker.sock", refusal.InvalidArguments},
		{"ip4:icmp", "93.184.216.34", refusal.InvalidArguments},
		{"tcp", "example.test", refusal.InvalidHost},
		{"tcp", "example.test:https", refusal.InvalidArguments},
		{"tcp", "example.test:0", refusal.InvalidArguments},
		{"tcp", "example.test:65536", refusal.InvalidArguments},
		{"tcp", ":443", refusal.InvalidHost},
		{"tcp", "127.1:80", refusal.InvalidHost},
		{"tcp", "0x7f000001:80", refusal.InvalidHost},
		{"tcp", "2130706433:80", refusal.InvalidHost},
		{"tcp", "[fe80::1%eth0]:80", refusal.InvalidHost},
		{"tcp", "exa mple.test:80", refusal.InvalidHost},
	} {
		t.Run(tc.network+" "+tc.address, func(t *testing.T) {
			g := NewGuard(&Options{Resolver: failResolver{t}, Dial: noDial(t)})
			_, err := g.DialContext(context.Background(), tc.network, tc.address)
			wantRefusal(t, err, tc.code)
		})
	}
}

func TestDialResolutionFailure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers map[string][]string
		wantIs  error
	}{
		{"error", map[string][]string{}, errNoSuchHost},
		{"no answers", map[string][]string{"nx.test": {}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGuard(&Options{Resolver: newMapResolver(tc.answers), Dial: noDial(t)})
			_, err := g.DialContext(context.Background(), "tcp", "nx.test:443")
			r := wantRefusal(t, err, refusal.ConnectionFailed)
			if r.Message != "cannot resolve nx.test" {
				t.Errorf("message = %q; want %q", r.Message, "cannot resolve nx.test")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("errors.Is(err, %v) = false; want the resolver's error wrapped", tc.wantIs)
			}
		})
	}
}

func TestDialNetworkFamily(t *testing.T) {
	answers := map[string][]string{
		"dual.test": {"2606:4700:4700::1111", "93.184.216.34"},
		"v6.test":   {"2606:4700:4700::1111"},
	}
	for _, tc := range []struct {
		network, host string
		want          []string // dialed addresses; nil: refused
		wantMsg       string
	}{
		{"tcp", "dual.test", []string{"[2606:4700:4700::1111]:443", "93.184.216.34:443"}, ""},
		{"tcp4", "dual.test", []string{"93.184.216.34:443"}, ""},
		{"tcp6", "dual.test", []string{"[2606:4700:4700::1111]:443"}, ""},
		{"tcp4", "v6.test", nil, "v6.test has no IPv4 address"},
		{"tcp6", "93.184.216.34", nil, "93.184.216.34 has no IPv6 address"},
	} {
		t.Run(tc.network+" "+tc.host, func(t *testing.T) {
			rd := &recordingDial{err: errors.New("connection refused (test)")}
			g := NewGuard(&Options{Resolver: newMapResolver(answers), Dial: rd.Dial})
			_, err := g.DialContext(context.Background(), tc.network, net.JoinHostPort(tc.host, "443"))
			if tc.want == nil {
				wantRefusal(t, err, refusal.ConnectionFailed, tc.wantMsg)
			} else {
				// Every candidate was tried, in order, and all failed.
				r := wantRefusal(t, err, refusal.ConnectionFailed, "cannot connect to "+tc.host+":443")
				if !errors.Is(r, rd.err) {
					t.Errorf("errors.Is(err, dial error) = false; want the dial errors wrapped")
				}
			}
			if diff := cmp.Diff(tc.want, rd.addresses()); diff != "" {
				t.Errorf("dialed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDialFallsBackToNextAddress(t *testing.T) {
	p1, p2 := net.Pipe()
	defer p2.Close()
	defer p1.Close()
	var got []string
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"two.test": {"93.184.216.34", "93.184.216.35"}}),
		Dial: func(_ context.Context, _, address string) (net.Conn, error) {
			got = append(got, address)
			if address == "93.184.216.34:443" {
				return nil, errors.New("connection refused (test)")
			}
			return p1, nil
		},
	})
	conn, err := g.DialContext(context.Background(), "tcp", "two.test:443")
	if err != nil {
		t.Fatalf("DialContext: %v", err)
	}
	if conn != p1 {
		t.Errorf("got another conn than the second dial's")
	}
	if diff := cmp.Diff([]string{"93.184.216.34:443", "93.184.216.35:443"}, got); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

func TestDialTimeout(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"slow.test": {"93.184.216.34"}}),
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	_, err := g.DialContext(ctx, "tcp", "slow.test:443")
	wantRefusal(t, err, refusal.Timeout, "slow.test:443")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, context.DeadlineExceeded) = false")
	}
}

// TestLoopbackAdmission dials real loopback servers through the default
// dialer: local mode's port is reachable by its three host names, nothing
// else on loopback is, and DNS is never asked.
func TestLoopbackAdmission(t *testing.T) {
	_, port := loopbackServer(t, nil)
	other := newCountingListener(t)
	ps := strconv.Itoa(int(port))
	admit := func(host string) context.Context {
		return WithLoopback(context.Background(), capability.MustTarget(host, port))
	}
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		network string
		address string
		wantErr refusal.Code // "" for success
	}{
		{"127.0.0.1 admitted", admit("127.0.0.1"), "tcp", "127.0.0.1:" + ps, ""},
		{"localhost admitted", admit("localhost"), "tcp", "localhost:" + ps, ""},
		{"LOCALHOST. admitted", admit("localhost"), "tcp", "LOCALHOST.:" + ps, ""},
		{"::1 dials ::1 only, never the IPv4 listener", admit("::1"), "tcp", "[::1]:" + ps, refusal.ConnectionFailed},
		{"admitted 127.0.0.1, written 127.0.0.1", WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port)), "tcp", "127.0.0.1:" + ps, ""},
		{"admitted 127.0.0.1, dialed localhost", WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port)), "tcp", "localhost:" + ps, refusal.AddressNotPublic},
		{"admitted ::1, dialed 127.0.0.1", WithLoopback(context.Background(), capability.MustTarget("::1", port)), "tcp", "127.0.0.1:" + ps, refusal.AddressNotPublic},
		{"tcp4 localhost admitted", admit("localhost"), "tcp4", "localhost:" + ps, ""},
		{"no admission", context.Background(), "tcp", "127.0.0.1:" + ps, refusal.AddressNotPublic},
		{"localhost, no admission", context.Background(), "tcp", "localhost:" + ps, refusal.AddressNotPublic},
		{"admitted port, other port dialed", admit("127.0.0.1"), "tcp", other.Addr, refusal.AddressNotPublic},
		{"localhost, other port", admit("localhost"), "tcp", "localhost:" + strconv.Itoa(int(other.Port)), refusal.AddressNotPublic},
		{"127.0.0.2 is not local mode", admit("127.0.0.1"), "tcp", "127.0.0.2:" + ps, refusal.AddressNotPublic},
		{"mapped loopback is not local mode", admit("127.0.0.1"), "tcp", "[::ffff:127.0.0.1]:" + ps, refusal.AddressNotPublic},
		{"0.0.0.0 is not local mode", admit("127.0.0.1"), "tcp", "0.0.0.0:" + ps, refusal.AddressNotPublic},
		{"the zero target admits nothing", WithLoopback(context.Background(), capability.Target{}), "tcp", "127.0.0.1:" + ps, refusal.AddressNotPublic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGuard(&Options{Resolver: failResolver{t}})
			conn, err := g.DialContext(tc.ctx, tc.network, tc.address)
			if tc.wantErr != "" {
				if conn != nil {
					conn.Close()
				}
				wantRefusal(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("DialContext(%s): %v", tc.address, err)
			}
			defer conn.Close()
			if got, want := conn.RemoteAddr().String(), "127.0.0.1:"+ps; got != want {
				t.Errorf("connected to %s; want %s", got, want)
			}
		})
	}
	if n := other.accepted(t); n != 0 {
		t.Errorf("the non-admitted loopback port accepted %d connections; want 0", n)
	}
}

// TestLoopbackFallsBackToIPv6 checks the order 127.0.0.1 then ::1 with a
// server listening on [::1] only.
func TestLoopbackFallsBackToIPv6(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	defer func() { ln.Close(); <-done }()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	// The port must refuse on 127.0.0.1, as the test needs, until it ends.
	if !testnet.HoldRefused(t, netip.AddrPortFrom(loopback4, port)) {
		t.Skipf("port %d is taken on 127.0.0.1", port)
	}
	var got []string
	var d net.Dialer
	g := NewGuard(&Options{
		Resolver: failResolver{t},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			got = append(got, address)
			return d.DialContext(ctx, network, address)
		},
	})
	conn, err := g.DialContext(WithLoopback(context.Background(), capability.MustTarget("localhost", port)), "tcp", "localhost:"+strconv.Itoa(int(port)))
	if err != nil {
		t.Fatalf("DialContext: %v", err)
	}
	conn.Close()
	ps := strconv.Itoa(int(port))
	if diff := cmp.Diff([]string{"127.0.0.1:" + ps, "[::1]:" + ps}, got); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

// TestDefaultDialerControl proves the default dialer's Control check is
// wired in: handed a loopback address directly (as a rebinding answer
// would be, past every earlier check), it refuses before connect(2), and
// lets through exactly the admitted address and port.
func TestDefaultDialerControl(t *testing.T) {
	target := newCountingListener(t)
	other := newCountingListener(t)
	g := NewGuard(nil)
	admit := func(port uint16) context.Context {
		ap := netip.AddrPortFrom(loopback4, port)
		return withDialing(context.Background(), ap.String(), ap, true)
	}

	_, err := g.dial(context.Background(), "tcp", target.Addr)
	wantRefusal(t, err, refusal.AddressNotPublic, "127.0.0.1 is in 127.0.0.0/8 (loopback)")
	_, err = g.dial(admit(target.Port), "tcp", other.Addr)
	wantRefusal(t, err, refusal.AddressNotPublic)
	conn, err := g.dial(admit(target.Port), "tcp", target.Addr)
	if err != nil {
		t.Fatalf("admitted dial: %v", err)
	}
	conn.Close()

	if n := target.accepted(t); n != 1 {
		t.Errorf("target accepted %d connections; want 1 (the admitted one)", n)
	}
	if n := other.accepted(t); n != 0 {
		t.Errorf("other accepted %d connections; want 0", n)
	}
}

// TestControlContext holds the dial-time check to its contract: only a
// public address, or the exact loopback address and port admitted for
// this attempt, passes; the literal a Guard's dial carries never admits
// another address.
func TestControlContext(t *testing.T) {
	lit := func(s string, admitted bool) context.Context {
		ap := netip.MustParseAddrPort(s)
		return withDialing(context.Background(), ap.String(), ap, admitted)
	}
	admitted := lit("127.0.0.1:3000", true)
	public4 := lit("93.184.216.34:443", false)
	public6 := lit("[2606:4700:4700::1111]:443", false)
	bg := context.Background()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		address string
		ok      bool
	}{
		{"public v4", bg, "93.184.216.34:443", true},
		{"public v6", bg, "[2606:4700:4700::1111]:443", true},
		{"public v4 port 0", bg, "93.184.216.34:0", true},
		{"loopback", bg, "127.0.0.1:3000", false},
		{"mapped link local", bg, "[::ffff:169.254.169.254]:80", false},
		{"private v4", bg, "10.1.2.3:80", false},
		{"private v6", bg, "[fd00:ec2::254]:80", false},
		{"zoned", bg, "[fe80::1%eth0]:80", false},
		{"garbage", bg, "not an address", false},
		{"leading zero octet", bg, "010.0.0.1:80", false},
		{"name", bg, "example.com:443", false},
		{"admitted", admitted, "127.0.0.1:3000", true},
		{"admitted mapped", admitted, "[::ffff:127.0.0.1]:3000", true}, // how a dual-stack socket may report it
		{"admitted other port", admitted, "127.0.0.1:3001", false},
		{"admitted other address", admitted, "127.0.0.2:3000", false},
		{"admitted other family", admitted, "[::1]:3000", false},
		{"carried public v4", public4, "93.184.216.34:443", true},
		{"carried public v6", public6, "[2606:4700:4700::1111]:443", true},
		{"carried public, other address loopback", public4, "127.0.0.1:443", false},
		{"carried public, other address private v6", public6, "[fd00::1]:443", false},
		{"carried public, other port still public", public4, "93.184.216.34:80", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ControlContext(tc.ctx, "tcp", tc.address, nil)
			if (err == nil) != tc.ok {
				t.Errorf("ControlContext(%s) = %v; want ok = %t", tc.address, err, tc.ok)
			}
			if err != nil && refusal.CodeOf(err) != refusal.AddressNotPublic {
				t.Errorf("ControlContext(%s) code = %s; want %s", tc.address, refusal.CodeOf(err), refusal.AddressNotPublic)
			}
		})
	}
}

// TestControlContextCarriedNonPublic: were a non-public literal ever
// carried without admission, the check still refuses it.
func TestControlContextCarriedNonPublic(t *testing.T) {
	ap := netip.MustParseAddrPort("169.254.169.254:80")
	ctx := withDialing(context.Background(), ap.String(), ap, false)
	err := ControlContext(ctx, "tcp", "169.254.169.254:80", nil)
	wantRefusal(t, err, refusal.AddressNotPublic, "169.254.169.254 is in 169.254.0.0/16 (link local)")
}

// TestControlContextAllocs: admitting allocates nothing, on the carried
// path and on the parsing path.
func TestControlContextAllocs(t *testing.T) {
	ap := netip.MustParseAddrPort("[2606:4700:4700::1111]:443")
	carried := withDialing(context.Background(), ap.String(), ap, false)
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		address string
	}{
		{"carried v6", carried, "[2606:4700:4700::1111]:443"},
		{"parsed v4", context.Background(), "93.184.216.34:443"},
		{"parsed v6", context.Background(), "[2606:4700:4700::1111]:443"},
	} {
		n := testing.AllocsPerRun(100, func() {
			if err := ControlContext(tc.ctx, "tcp", tc.address, nil); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocs per admitted check; want 0", tc.name, n)
		}
	}
}

func TestParseAddrPort4(t *testing.T) {
	for _, s := range []string{
		"0.0.0.0:0", "93.184.216.34:443", "255.255.255.255:65535", "1.2.3.4:0443",
		"256.0.0.1:80", "1.2.3:80", "1.2.3.4", "1.2.3.4:", "1.2.3.4:65536", "01.2.3.4:80",
		"1.2.3.4:+80", "1.2.3.4:8a", "1..3.4:80", "[::1]:80", "", "1.2.3.4.5:80", " 1.2.3.4:80",
	} {
		checkParseAddrPort4(t, s)
	}
}

// FuzzParseAddrPort4 holds the fast IPv4 parser to netip.ParseAddrPort:
// whatever it accepts, netip accepts as the same address and port, and
// it accepts every dotted IPv4 "a.b.c.d:port" netip accepts.
func FuzzParseAddrPort4(f *testing.F) {
	for _, s := range []string{"93.184.216.34:443", "1.2.3.4:0443", "01.2.3.4:1", "255.255.255.255:65535", "[::ffff:1.2.3.4]:1"} {
		f.Add(s)
	}
	f.Fuzz(checkParseAddrPort4)
}

func checkParseAddrPort4(t *testing.T, s string) {
	got, ok := parseAddrPort4(s)
	want, err := netip.ParseAddrPort(s)
	if ok && (err != nil || got != want) {
		t.Errorf("parseAddrPort4(%q) = %v; netip says %v, %v", s, got, want, err)
	}
	if !ok && err == nil && want.Addr().Is4() {
		t.Errorf("parseAddrPort4(%q) refused what netip parses as %v", s, want)
	}
}

func TestLoopback(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want capability.Target
		ok   bool
	}{
		{"nothing", context.Background(), capability.Target{}, false},
		{"localhost:8080", WithLoopback(context.Background(), capability.MustTarget("localhost", 8080)), capability.MustTarget("localhost", 8080), true},
		{"the zero target", WithLoopback(context.Background(), capability.Target{}), capability.Target{}, false},
		{"not a local host", WithLoopback(context.Background(), capability.MustTarget("127.0.0.2", 8080)), capability.MustTarget("127.0.0.2", 8080), false},
	} {
		if got, ok := Loopback(tc.ctx); got != tc.want || ok != tc.ok {
			t.Errorf("%s: Loopback = %v, %t; want %v, %t", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDialLogsOneLinePerDecision checks the diagnostic line: domain,
// host, address, decision; one per DialContext.
func TestDialLogsOneLinePerDecision(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p1, p2 := net.Pipe()
	defer p2.Close()
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"internal.test": {"10.0.0.1"}, "example.test": {"93.184.216.34"}}),
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return p1, nil // a custom Dial: nothing leaves the process
		},
		Logger: logger,
	})
	_, _ = g.DialContext(context.Background(), "tcp", "internal.test:443")
	conn, err := g.DialContext(context.Background(), "tcp", "example.test:443")
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, _ = g.DialContext(context.Background(), "tcp", "nx.test:443")
	conn, err = g.DialContext(WithLoopback(context.Background(), capability.MustTarget("localhost", 3000)), "tcp", "localhost:3000")
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()

	var got []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		got = append(got, map[string]string{
			"domain": m["domain"].(string), "host": m["host"].(string), "addr": m["addr"].(string),
			"decision": m["decision"].(string), "code": m["code"].(string), "level": m["level"].(string),
		})
	}
	want := []map[string]string{
		{"domain": "EGRESS", "host": "internal.test", "addr": "10.0.0.1:443", "decision": "refuse", "code": "address_not_public", "level": "DEBUG"},
		{"domain": "EGRESS", "host": "example.test", "addr": "93.184.216.34:443", "decision": "allow", "code": "", "level": "DEBUG"},
		{"domain": "EGRESS", "host": "nx.test", "addr": "", "decision": "fail", "code": "connection_failed", "level": "DEBUG"},
		{"domain": "EGRESS", "host": "localhost", "addr": "127.0.0.1:3000", "decision": "allow_local", "code": "", "level": "DEBUG"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

// timeoutError is a net.Error that timed out, as a dialer's own Timeout
// reports it.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout (test)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestDialTimeoutOfEveryAttempt(t *testing.T) {
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"slow.test": {"93.184.216.34", "93.184.216.35"}}),
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: timeoutError{}}
		},
	})
	_, err := g.DialContext(context.Background(), "tcp", "slow.test:443")
	wantRefusal(t, err, refusal.Timeout, "connecting to slow.test:443 timed out")
}

// TestDialSharesDeadline: with several addresses, one attempt gets its
// share of the deadline, so an unresponsive first address cannot use it up.
func TestDialSharesDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	overall, _ := ctx.Deadline()
	var deadlines []time.Time
	g := NewGuard(&Options{
		Resolver: newMapResolver(map[string][]string{"two.test": {"93.184.216.34", "93.184.216.35"}}),
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d, _ := ctx.Deadline()
			deadlines = append(deadlines, d)
			return nil, errors.New("connection refused (test)")
		},
	})
	_, err := g.DialContext(ctx, "tcp", "two.test:443")
	wantRefusal(t, err, refusal.ConnectionFailed)
	if len(deadlines) != 2 {
		t.Fatalf("got %d attempts; want 2", len(deadlines))
	}
	if !deadlines[0].Before(overall.Add(-5 * time.Second)) {
		t.Errorf("first attempt's deadline %v is not about half of the overall %v", deadlines[0], overall)
	}
	if !deadlines[1].Equal(overall) {
		t.Errorf("last attempt's deadline %v; want the overall %v", deadlines[1], overall)
	}
}

func TestNewGuardDefaults(t *testing.T) {
	for _, opts := range []*Options{nil, {}} {
		g := NewGuard(opts)
		if g.resolver != Resolver(net.DefaultResolver) {
			t.Errorf("resolver %T; want net.DefaultResolver", g.resolver)
		}
		if g.dial == nil || g.logger == nil {
			t.Errorf("dial or logger nil; want the defaults")
		}
	}
}

// TestLoopbackDialsTheAddressWritten is issue 11 item 5: local mode dials
// 127.0.0.1 over IPv4 only, ::1 over IPv6 only, and localhost 127.0.0.1
// then ::1, so a listener on the other address family is never reached. A
// recording dialer that refuses every connection shows what was dialled.
func TestLoopbackDialsTheAddressWritten(t *testing.T) {
	const port = 3000
	for _, tc := range []struct {
		host string
		want []string
	}{
		{"127.0.0.1", []string{"127.0.0.1:3000"}},
		{"::1", []string{"[::1]:3000"}},
		{"localhost", []string{"127.0.0.1:3000", "[::1]:3000"}},
	} {
		t.Run(tc.host, func(t *testing.T) {
			var got []string
			g := NewGuard(&Options{
				Resolver: failResolver{t},
				Dial: func(_ context.Context, _, address string) (net.Conn, error) {
					got = append(got, address)
					return nil, errors.New("refused by the recording dialer")
				},
			})
			target := capability.MustTarget(tc.host, port)
			_, err := g.DialContext(WithLoopback(context.Background(), target), "tcp", target.String())
			wantRefusal(t, err, refusal.ConnectionFailed)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("dialed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoopbackOtherFamilyNeverReached: a listener on [::1] only is not
// reached by a URL written with 127.0.0.1, however the port matches.
func TestLoopbackOtherFamilyNeverReached(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	if !testnet.HoldRefused(t, netip.AddrPortFrom(loopback4, port)) {
		t.Skipf("port %d is taken on 127.0.0.1", port)
	}
	g := NewGuard(&Options{Resolver: failResolver{t}})
	target := capability.MustTarget("127.0.0.1", port)
	conn, err := g.DialContext(WithLoopback(context.Background(), target), "tcp", target.String())
	if err == nil {
		conn.Close()
		t.Fatalf("127.0.0.1:%d reached the IPv6-only listener", port)
	}
	wantRefusal(t, err, refusal.ConnectionFailed)
}

// TestControlSeesCarriedLiteral: on a real socket, the address the net
// package hands the Control function is the very literal the Guard
// carried, for IPv4 and IPv6, so the check compares instead of parsing.
func TestControlSeesCarriedLiteral(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			host := "127.0.0.1"
			if network == "tcp6" {
				host = "::1"
			}
			ln, err := net.Listen(network, net.JoinHostPort(host, "0"))
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer ln.Close()
			go func() {
				if c, err := ln.Accept(); err == nil {
					c.Close()
				}
			}()
			port := uint16(ln.Addr().(*net.TCPAddr).Port)
			var seen, carried string
			d := &net.Dialer{ControlContext: func(ctx context.Context, network, address string, c syscall.RawConn) error {
				seen = address
				if v, ok := ctx.Value(dialingKey{}).(*dialing); ok {
					carried = v.literal
				}
				return ControlContext(ctx, network, address, c)
			}}
			g := NewGuard(&Options{Resolver: failResolver{t}, Dial: d.DialContext})
			ctx := WithLoopback(context.Background(), capability.MustTarget(host, port))
			conn, err := g.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(int(port))))
			if err != nil {
				t.Fatalf("DialContext: %v", err)
			}
			conn.Close()
			if seen == "" || seen != carried {
				t.Errorf("Control saw %q; the Guard carried %q; want them equal", seen, carried)
			}
		})
	}
}
