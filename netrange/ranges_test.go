package netrange

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

// docPrefixes is shared/reference/address-ranges.md, typed in by hand: the
// independent statement of what must be refused. Together with "all of IPv6
// outside 2000::/3" it is the whole refused set, so docRefused does not
// depend on the generated tables at all.
var docPrefixes = []string{
	// IPv4
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24",
	"192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24",
	"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
	// IPv6 outside 2000::/3, named in the reference
	"::/128", "::1/128", "::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96",
	"64:ff9b:1::/48", "100::/64", "fc00::/7", "fec0::/10", "fe80::/10", "ff00::/8", "5f00::/16",
	// IPv6 inside 2000::/3
	"2001::/23", "2001::/32", "2001:2::/48", "2001:3::/32", "2001:4:112::/48",
	"2001:10::/28", "2001:20::/28", "2001:30::/28", "2001:db8::/32", "2002::/16",
	"2620:4f:8000::/48", "3fff::/20",
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

var docParsed = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range docPrefixes {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// docRefused reports whether the reference document refuses addr.
func docRefused(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return true
	}
	addr = addr.Unmap()
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return true
	}
	for _, p := range docParsed {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// slowNonPublicRange is the obviously correct classifier: a linear scan of
// every prefix of rangeTable for the most specific one containing addr.
func slowNonPublicRange(addr netip.Addr) (Range, bool) {
	if !addr.IsValid() {
		return invalidRange, true
	}
	if z := addr.Zone(); z != "" {
		plain := addr.WithZone("")
		if r, ok := slowNonPublicRange(plain); ok {
			return r, true
		}
		return Range{Prefix: netip.PrefixFrom(plain, plain.BitLen()), Name: zoneName}, true
	}
	addr = addr.Unmap()
	best := -1
	for i, r := range rangeTable {
		if r.Prefix.Contains(addr) && (best < 0 || r.Prefix.Bits() > rangeTable[best].Prefix.Bits()) {
			best = i
		}
	}
	if best < 0 {
		return Range{}, false
	}
	return rangeTable[best], true
}

func TestNonPublicRange(t *testing.T) {
	pfx := netip.MustParsePrefix
	for _, tc := range []struct {
		addr string
		want Range // zero: public
	}{
		// Positive controls: public.
		{"8.8.8.8", Range{}},
		{"1.1.1.1", Range{}},
		{"93.184.216.34", Range{}},
		{"2606:4700:4700::1111", Range{}},
		{"2a00:1450::1", Range{}},
		{"::ffff:8.8.8.8", Range{}}, // unmapped, then public
		// Cloud metadata addresses.
		{"169.254.169.254", Range{pfx("169.254.0.0/16"), "link local"}},
		{"169.254.170.2", Range{pfx("169.254.0.0/16"), "link local"}},
		{"100.100.100.200", Range{pfx("100.64.0.0/10"), "CGNAT shared address space"}},
		{"192.0.0.192", Range{pfx("192.0.0.0/24"), "IETF protocol assignments"}},
		{"fd00:ec2::254", Range{pfx("fc00::/7"), "unique local"}},
		// IPv4, every row of the reference.
		{"0.0.0.0", Range{pfx("0.0.0.0/32"), "this host on this network"}},
		{"0.1.2.3", Range{pfx("0.0.0.0/8"), "this network"}},
		{"10.0.0.1", Range{pfx("10.0.0.0/8"), "private use"}},
		{"127.0.0.1", Range{pfx("127.0.0.0/8"), "loopback"}},
		{"127.255.255.254", Range{pfx("127.0.0.0/8"), "loopback"}},
		{"172.31.255.255", Range{pfx("172.16.0.0/12"), "private use"}},
		{"192.0.0.9", Range{pfx("192.0.0.9/32"), "port control protocol anycast"}},
		{"192.0.0.171", Range{pfx("192.0.0.171/32"), "NAT64/DNS64 discovery"}},
		{"192.0.2.1", Range{pfx("192.0.2.0/24"), "documentation, TEST-NET-1"}},
		{"192.31.196.1", Range{pfx("192.31.196.0/24"), "AS112-v4"}},
		{"192.52.193.1", Range{pfx("192.52.193.0/24"), "AMT"}},
		{"192.88.99.1", Range{pfx("192.88.99.0/24"), "deprecated, 6to4 relay anycast"}},
		{"192.88.99.2", Range{pfx("192.88.99.2/32"), "6a44-relay anycast address"}},
		{"192.168.1.1", Range{pfx("192.168.0.0/16"), "private use"}},
		{"192.175.48.1", Range{pfx("192.175.48.0/24"), "direct delegation AS112 service"}},
		{"198.19.255.255", Range{pfx("198.18.0.0/15"), "benchmarking"}},
		{"198.51.100.7", Range{pfx("198.51.100.0/24"), "documentation, TEST-NET-2"}},
		{"203.0.113.7", Range{pfx("203.0.113.0/24"), "documentation, TEST-NET-3"}},
		{"224.0.0.251", Range{pfx("224.0.0.0/4"), "multicast"}},
		{"239.255.255.250", Range{pfx("224.0.0.0/4"), "multicast"}},
		{"240.0.0.1", Range{pfx("240.0.0.0/4"), "reserved"}},
		{"255.255.255.255", Range{pfx("255.255.255.255/32"), "limited broadcast"}},
		// IPv4-mapped forms are classified as IPv4.
		{"::ffff:169.254.169.254", Range{pfx("169.254.0.0/16"), "link local"}},
		{"::ffff:127.0.0.1", Range{pfx("127.0.0.0/8"), "loopback"}},
		{"::ffff:0.0.0.0", Range{pfx("0.0.0.0/32"), "this host on this network"}},
		// IPv6 outside 2000::/3.
		{"::", Range{pfx("::/128"), "unspecified"}},
		{"::1", Range{pfx("::1/128"), "loopback"}},
		{"::7f00:1", Range{pfx("::/96"), "deprecated IPv4-compatible"}},
		{"::ffff:0:7f00:1", Range{pfx("::ffff:0:0:0/96"), "SIIT IPv4-translated"}},
		{"64:ff9b::7f00:1", Range{pfx("64:ff9b::/96"), "NAT64"}},
		{"64:ff9b::808:808", Range{pfx("64:ff9b::/96"), "NAT64"}}, // whole prefix, whatever it embeds
		{"64:ff9b:1::1", Range{pfx("64:ff9b:1::/48"), "NAT64 local use"}},
		{"100::1", Range{pfx("100::/64"), "discard-only"}},
		{"100:0:0:1::1", Range{pfx("100:0:0:1::/64"), "dummy IPv6 prefix"}},
		{"fc00::1", Range{pfx("fc00::/7"), "unique local"}},
		{"fec0::1", Range{pfx("fec0::/10"), "deprecated site local"}},
		{"fe80::1", Range{pfx("fe80::/10"), "link local"}},
		{"ff02::1", Range{pfx("ff00::/8"), "multicast"}},
		{"5f00::1", Range{pfx("5f00::/16"), "segment routing, SRv6 SIDs"}},
		{"1::1", Range{pfx("::/3"), "not global unicast (outside 2000::/3)"}},
		{"4000::1", Range{pfx("4000::/2"), "not global unicast (outside 2000::/3)"}},
		{"e000::1", Range{pfx("8000::/1"), "not global unicast (outside 2000::/3)"}},
		// IPv6 inside 2000::/3.
		{"2001::1", Range{pfx("2001::/32"), "Teredo"}},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", Range{pfx("2001::/32"), "Teredo"}},
		{"2001:1::1", Range{pfx("2001:1::1/128"), "port control protocol anycast"}},
		{"2001:1::4", Range{pfx("2001::/23"), "IETF protocol assignments"}},
		{"2001:2::1", Range{pfx("2001:2::/48"), "benchmarking"}},
		{"2001:3::1", Range{pfx("2001:3::/32"), "AMT"}},
		{"2001:4:112::1", Range{pfx("2001:4:112::/48"), "AS112-v6"}},
		{"2001:10::1", Range{pfx("2001:10::/28"), "deprecated, previously ORCHID"}},
		{"2001:20::1", Range{pfx("2001:20::/28"), "ORCHIDv2"}},
		{"2001:30::1", Range{pfx("2001:30::/28"), "drone remote ID protocol entity tags, DETs prefix"}},
		{"2001:1ff:ffff::1", Range{pfx("2001::/23"), "IETF protocol assignments"}},
		{"2001:db8::1", Range{pfx("2001:db8::/32"), "documentation"}},
		{"2002:7f00:1::1", Range{pfx("2002::/16"), "6to4"}},
		{"2002:808:808::1", Range{pfx("2002::/16"), "6to4"}},
		{"2620:4f:8000::1", Range{pfx("2620:4f:8000::/48"), "direct delegation AS112 service"}},
		{"3fff::1", Range{pfx("3fff::/20"), "documentation"}},
		{"2001:200::1", Range{}}, // just past 2001::/23
		{"2620:4f:8001::1", Range{}},
		{"3fff:1000::1", Range{}}, // just past 3fff::/20
		// Zones.
		{"fe80::1%eth0", Range{pfx("fe80::/10"), "link local"}},
		{"2606:4700:4700::1111%eth0", Range{pfx("2606:4700:4700::1111/128"), zoneName}},
		{"::ffff:8.8.8.8%eth0", Range{pfx("::ffff:8.8.8.8/128"), zoneName}}, // the zone is not lost by Unmap
	} {
		t.Run(tc.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(tc.addr)
			got, ok := NonPublicRange(addr)
			if wantOK := tc.want != (Range{}); ok != wantOK || got != tc.want {
				t.Errorf("NonPublicRange(%s) = %v, %t; want %v, %t", tc.addr, got, ok, tc.want, wantOK)
			}
			if ok != docRefused(addr) {
				t.Errorf("NonPublicRange(%s) refused = %t; the reference document says %t", tc.addr, ok, docRefused(addr))
			}
		})
	}
	t.Run("invalid", func(t *testing.T) {
		got, ok := NonPublicRange(netip.Addr{})
		if !ok || got != invalidRange {
			t.Errorf("NonPublicRange(netip.Addr{}) = %v, %t; want %v, true", got, ok, invalidRange)
		}
	})
}

// lastOf returns the last address of p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// TestEdgesOfEveryRange walks both edges of every generated range and every
// prefix of the reference document: the first and last address inside are
// refused, and the addresses just outside are classified exactly as the
// slow reference and the document say (public unless another range holds
// them). Every IPv4 probe is also checked in its ::ffff: form.
func TestEdgesOfEveryRange(t *testing.T) {
	var prefixes []netip.Prefix
	for _, r := range rangeTable {
		prefixes = append(prefixes, r.Prefix)
	}
	for _, s := range docPrefixes {
		prefixes = append(prefixes, netip.MustParsePrefix(s))
	}
	prefixes = append(prefixes, globalUnicast) // its edges too: 1fff:… and 4000::
	check := func(t *testing.T, addr netip.Addr, mustRefuse bool) {
		t.Helper()
		got, ok := NonPublicRange(addr)
		want, wantOK := slowNonPublicRange(addr)
		if ok != wantOK || got != want {
			t.Errorf("NonPublicRange(%s) = %v, %t; slow reference says %v, %t", addr, got, ok, want, wantOK)
		}
		if ok != docRefused(addr) {
			t.Errorf("NonPublicRange(%s) refused = %t; the reference document says %t", addr, ok, docRefused(addr))
		}
		if mustRefuse && !ok {
			t.Errorf("NonPublicRange(%s) = public; want refused", addr)
		}
		if ok && !got.Prefix.Contains(addr.Unmap()) {
			t.Errorf("NonPublicRange(%s) = %v, which does not contain it", addr, got)
		}
		if addr.Is4() {
			mapped := netip.AddrFrom16(addr.As16())
			if g, o := NonPublicRange(mapped); g != got || o != ok {
				t.Errorf("NonPublicRange(%s) = %v, %t; want %v, %t as for %s", mapped, g, o, got, ok, addr)
			}
		}
	}
	for _, p := range prefixes {
		t.Run(p.String(), func(t *testing.T) {
			first, last := p.Addr(), lastOf(p)
			inside := p != globalUnicast
			check(t, first, inside)
			check(t, last, inside)
			if below := first.Prev(); below.IsValid() {
				check(t, below, false)
			}
			if above := last.Next(); above.IsValid() {
				check(t, above, false)
			}
		})
	}
}

func TestCheckPublic(t *testing.T) {
	for _, tc := range []struct {
		addr    netip.Addr
		wantMsg string // "" for public
	}{
		{netip.MustParseAddr("8.8.8.8"), ""},
		{netip.MustParseAddr("2606:4700:4700::1111"), ""},
		{netip.MustParseAddr("169.254.169.254"), "169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{netip.MustParseAddr("::ffff:169.254.169.254"), "::ffff:169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{netip.MustParseAddr("::1"), "::1 is in ::1/128 (loopback)"},
		{netip.MustParseAddr("2002:7f00:1::1"), "2002:7f00:1::1 is in 2002::/16 (6to4)"},
		{netip.MustParseAddr("fd00:ec2::254"), "fd00:ec2::254 is in fc00::/7 (unique local)"},
		{netip.MustParseAddr("2606:4700:4700::1111%eth0"), "2606:4700:4700::1111%eth0 is scoped by an IPv6 zone"},
		{netip.MustParseAddr("2606:4700::1%\x1b[31m"), "2606:4700::1%?[31m is scoped by an IPv6 zone"},
		{netip.Addr{}, "the invalid IP address is not public"},
	} {
		t.Run(tc.addr.String(), func(t *testing.T) {
			err := CheckPublic(tc.addr)
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("CheckPublic(%s) = %v; want nil", tc.addr, err)
				}
				return
			}
			r, ok := refusal.As(err)
			if !ok {
				t.Fatalf("CheckPublic(%s) = %v; want a *refusal.Error", tc.addr, err)
			}
			if r.Code != refusal.AddressNotPublic || r.Message != tc.wantMsg {
				t.Errorf("CheckPublic(%s) = %s %q; want %s %q", tc.addr, r.Code, r.Message, refusal.AddressNotPublic, tc.wantMsg)
			}
			if !strings.Contains(r.Hint, "public") || !strings.Contains(r.Hint, "local mode") {
				t.Errorf("hint %q does not say that only public addresses are fetched and loopback needs local mode", r.Hint)
			}
			if !errors.Is(err, refusal.New(refusal.AddressNotPublic, "")) {
				t.Errorf("errors.Is(err, address_not_public) = false")
			}
		})
	}
}

func TestNonPublicRangeDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"8.8.8.8", "169.254.169.254", "2606:4700:4700::1111", "fd00:ec2::254", "::ffff:10.0.0.1", "2001:db8::1"} {
		addr := netip.MustParseAddr(s)
		if n := testing.AllocsPerRun(100, func() { NonPublicRange(addr) }); n != 0 {
			t.Errorf("NonPublicRange(%s) allocates %v times; want 0", s, n)
		}
		if _, refused := NonPublicRange(addr); refused {
			continue
		}
		if n := testing.AllocsPerRun(100, func() { _ = CheckPublic(addr) }); n != 0 {
			t.Errorf("CheckPublic(%s) allocates %v times for a public address; want 0", s, n)
		}
	}
}

// FuzzNonPublicRange checks that classification never panics and agrees
// with the slow linear scan and with the reference document, for IPv4,
// IPv6 and IPv4-mapped forms of the fuzzed bytes, with and without a zone.
func FuzzNonPublicRange(f *testing.F) {
	seeds := []string{
		"169.254.169.254",      // cloud metadata, link local
		"8.8.8.8",              // public
		"::ffff:127.0.0.1",     // mapped loopback
		"64:ff9b::7f00:1",      // NAT64 embedding loopback
		"2002:7f00:1::",        // 6to4 embedding loopback
		"2001::1",              // Teredo
		"fd00:ec2::254",        // AWS IPv6 metadata
		"2606:4700:4700::1111", // public IPv6
		"255.255.255.255",      // limited broadcast
		"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", // just below 2000::/3
	}
	for _, s := range seeds {
		b := netip.MustParseAddr(s).AsSlice()
		f.Add(b, "")
	}
	f.Add([]byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "eth0") // zoned link local
	f.Add([]byte{}, "")                                                         // invalid address
	f.Fuzz(func(t *testing.T, b []byte, zone string) {
		var addrs []netip.Addr
		switch {
		case len(b) >= 16:
			a := netip.AddrFrom16([16]byte(b[:16]))
			addrs = append(addrs, a, a.WithZone(zone))
		case len(b) >= 4:
			a := netip.AddrFrom4([4]byte(b[:4]))
			addrs = append(addrs, a, netip.AddrFrom16(a.As16()))
		default:
			addrs = append(addrs, netip.Addr{})
		}
		for _, a := range addrs {
			got, ok := NonPublicRange(a)
			want, wantOK := slowNonPublicRange(a)
			if ok != wantOK || got != want {
				t.Fatalf("NonPublicRange(%s) = %v, %t; slow reference says %v, %t", a, got, ok, want, wantOK)
			}
			if ok != docRefused(a) {
				t.Fatalf("NonPublicRange(%s) refused = %t; the reference document says %t", a, ok, docRefused(a))
			}
			if err := CheckPublic(a); (err == nil) == ok {
				t.Fatalf("CheckPublic(%s) = %v, but NonPublicRange says refused = %t", a, err, ok)
			}
		}
	})
}

var benchInputs = []struct{ name, addr string }{
	{"ipv4/public", "93.184.216.34"},
	{"ipv4/nonpublic", "169.254.169.254"},
	{"ipv4/mapped", "::ffff:192.168.1.1"},
	{"ipv6/public", "2606:4700:4700::1111"},
	{"ipv6/nonpublic", "fd00:ec2::254"},
	{"ipv6/nonpublic-global", "2001:db8::1"},
}

func BenchmarkNonPublicRange(b *testing.B) {
	for _, bc := range benchInputs {
		addr := netip.MustParseAddr(bc.addr)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0, ok0 := threadCPU()
			var n int
			for b.Loop() {
				if _, ok := NonPublicRange(addr); ok {
					n++
				}
			}
			if c1, ok1 := threadCPU(); ok0 && ok1 {
				b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
			}
			_ = n
		})
	}
}

// BenchmarkLinearScan measures the slow reference on the same inputs, a
// yardstick for BenchmarkNonPublicRange on a noisy machine.
func BenchmarkLinearScan(b *testing.B) {
	for _, bc := range benchInputs {
		addr := netip.MustParseAddr(bc.addr)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				slowNonPublicRange(addr)
			}
		})
	}
}

// Every span of the generated tables is sorted, disjoint and names a prefix
// that contains it: the binary search relies on it.
func TestGeneratedSpansAreSorted(t *testing.T) {
	for i, s := range v4Spans {
		if s.first > s.last || (i > 0 && v4Spans[i-1].last >= s.first) {
			t.Errorf("v4Spans[%d] %#x-%#x is out of order", i, s.first, s.last)
		}
		var f, l [4]byte
		binary.BigEndian.PutUint32(f[:], s.first)
		binary.BigEndian.PutUint32(l[:], s.last)
		p := rangeTable[s.r].Prefix
		if !p.Contains(netip.AddrFrom4(f)) || !p.Contains(netip.AddrFrom4(l)) {
			t.Errorf("v4Spans[%d] is not inside %v", i, p)
		}
	}
	for name, spans := range map[string][]v6Span{"global": v6GlobalSpans[:], "other": v6OtherSpans[:]} {
		for i, s := range spans {
			var f, l [16]byte
			binary.BigEndian.PutUint64(f[:8], s.firstHi)
			binary.BigEndian.PutUint64(f[8:], s.firstLo)
			binary.BigEndian.PutUint64(l[:8], s.lastHi)
			binary.BigEndian.PutUint64(l[8:], s.lastLo)
			first, last := netip.AddrFrom16(f), netip.AddrFrom16(l)
			if first.Compare(last) > 0 {
				t.Errorf("%s[%d] %v-%v is reversed", name, i, first, last)
			}
			if i > 0 {
				p := spans[i-1]
				if p.lastHi > s.firstHi || (p.lastHi == s.firstHi && p.lastLo >= s.firstLo) {
					t.Errorf("%s[%d] overlaps its predecessor", name, i)
				}
			}
			p := rangeTable[s.r].Prefix
			if !p.Contains(first) || !p.Contains(last) {
				t.Errorf("%s[%d] %v-%v is not inside %v", name, i, first, last, p)
			}
			if globalUnicast.Contains(first) != (name == "global") {
				t.Errorf("%s[%d] %v is in the wrong table", name, i, first)
			}
		}
	}
}

func ExampleCheckPublic() {
	for _, s := range []string{"8.8.8.8", "169.254.169.254", "::ffff:127.0.0.1", "64:ff9b::a00:1"} {
		err := CheckPublic(netip.MustParseAddr(s))
		fmt.Printf("%s: %v\n", s, err)
	}
	// Output:
	// 8.8.8.8: <nil>
	// 169.254.169.254: address_not_public: 169.254.169.254 is in 169.254.0.0/16 (link local)
	// ::ffff:127.0.0.1: address_not_public: ::ffff:127.0.0.1 is in 127.0.0.0/8 (loopback)
	// 64:ff9b::a00:1: address_not_public: 64:ff9b::a00:1 is in 64:ff9b::/96 (NAT64)
}

func ExampleNonPublicRange() {
	r, ok := NonPublicRange(netip.MustParseAddr("100.100.100.200"))
	fmt.Println(r, ok)
	// Output: 100.64.0.0/10 (CGNAT shared address space) true
}

// TestBuildIndex: the one-pass index is the per-byte scan it replaced,
// for every table.
func TestBuildIndex(t *testing.T) {
	naive := func(n int, bytes func(i int) (uint8, uint8)) [256]spanIndex {
		var ix [256]spanIndex
		for b := 0; b < 256; b++ {
			start, end := -1, -1
			for i := 0; i < n; i++ {
				if f, l := bytes(i); int(f) <= b && b <= int(l) {
					if start < 0 {
						start = i
					}
					end = i + 1
				}
			}
			if start >= 0 {
				ix[b] = spanIndex{uint8(start), uint8(end)}
			}
		}
		return ix
	}
	v4 := func(i int) (uint8, uint8) { return uint8(v4Spans[i].first >> 24), uint8(v4Spans[i].last >> 24) }
	g6 := func(i int) (uint8, uint8) {
		return uint8(v6GlobalSpans[i].firstHi >> 56), uint8(v6GlobalSpans[i].lastHi >> 56)
	}
	o6 := func(i int) (uint8, uint8) {
		return uint8(v6OtherSpans[i].firstHi >> 56), uint8(v6OtherSpans[i].lastHi >> 56)
	}
	for _, tc := range []struct {
		name  string
		n     int
		bytes func(int) (uint8, uint8)
	}{{"v4", len(v4Spans), v4}, {"v6 global", len(v6GlobalSpans), g6}, {"v6 other", len(v6OtherSpans), o6}} {
		if got, want := buildIndex(tc.n, tc.bytes), naive(tc.n, tc.bytes); got != want {
			t.Errorf("%s: buildIndex differs from the per-byte scan", tc.name)
		}
	}
}
