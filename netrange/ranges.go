package netrange

import (
	"encoding/binary"
	"net/netip"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

//go:generate go run ../internal/cmd/rangesgen -v4 testdata/iana-ipv4-special-registry-1.csv -v6 testdata/iana-ipv6-special-registry-1.csv -supplement testdata/ocfetch-supplement.csv -o ranges_gen.go

// Range is a block of addresses that is not public: a prefix and the name
// a refusal gives it ({169.254.0.0/16, "link local"}).
type Range struct {
	Prefix netip.Prefix
	Name   string
}

// String returns "169.254.0.0/16 (link local)".
func (r Range) String() string {
	if !r.Prefix.IsValid() {
		return r.Name
	}
	return r.Prefix.String() + " (" + r.Name + ")"
}

// v4Span and v6Span are the generated lookup tables' rows: a run of
// addresses, inclusive, refused as rangeTable[r].
type v4Span struct {
	first, last uint32
	r           uint8
}

type v6Span struct {
	firstHi, firstLo, lastHi, lastLo uint64
	r                                uint8
}

// The Range of the invalid netip.Addr{}, and the Name of the Range of a
// zoned address that no registry range contains.
var invalidRange = Range{Name: "invalid address"}

const zoneName = "address with an IPv6 zone"

// NonPublicRange returns the special-purpose range that contains addr, and
// true, or false if addr is public.
//
// addr is Unmap()ed first, so ::ffff:169.254.169.254 is classified as
// 169.254.169.254. The tables are generated from the IANA IPv4 and IPv6
// Special-Purpose Address Registries (every row, whatever its "Globally
// Reachable" column says) plus IPv4 multicast 224.0.0.0/4 and all of IPv6
// outside global unicast 2000::/3; the range returned is the most specific
// one (255.255.255.255 is in 255.255.255.255/32 "limited broadcast", not
// only in 240.0.0.0/4 "reserved"). Forms that embed an IPv4 address (6to4
// 2002::/16, Teredo 2001::/32, NAT64 64:ff9b::/96, IPv4-compatible ::/96)
// are refused as their whole prefix, whatever they embed.
//
// The invalid netip.Addr{} is not public ("invalid address", zero Prefix),
// and neither is an address with a zone: a zone makes the address mean
// something only on one link (the range returned is the address's own /128
// unless a registry range already contains it).
//
// It does not allocate and takes about 10 ns (BenchmarkNonPublicRange).
func NonPublicRange(addr netip.Addr) (Range, bool) {
	if addr.Zone() != "" {
		plain := addr.WithZone("")
		if r, ok := NonPublicRange(plain); ok {
			return r, true
		}
		return Range{Prefix: netip.PrefixFrom(plain, plain.BitLen()), Name: zoneName}, true
	}
	addr = addr.Unmap()
	switch {
	case addr.Is4():
		b := addr.As4()
		x := binary.BigEndian.Uint32(b[:])
		ix := v4Index[x>>24]
		lo, hi := int(ix.start), int(ix.end)
		for lo < hi { // find the first span of this octet that starts after x
			m := int(uint(lo+hi) >> 1)
			if v4Spans[m].first <= x {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo > int(ix.start) && x <= v4Spans[lo-1].last {
			return rangeTable[v4Spans[lo-1].r], true
		}
		return Range{}, false
	case addr.Is6():
		// AsSlice, not As16: copying As16's array result defeats store
		// forwarding and costs several times the whole lookup. The slice
		// does not escape, so it does not allocate (a test checks).
		b := addr.AsSlice()
		xh, xl := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:16])
		spans := v6OtherSpans[:]
		if xh>>61 == 1 { // 2000::/3, global unicast
			spans = v6GlobalSpans[:]
		}
		ix := v6Index[xh>>56]
		lo, hi := int(ix.start), int(ix.end)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			s := &spans[m]
			if s.firstHi < xh || (s.firstHi == xh && s.firstLo <= xl) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo > int(ix.start) {
			s := &spans[lo-1]
			if xh < s.lastHi || (xh == s.lastHi && xl <= s.lastLo) {
				return rangeTable[s.r], true
			}
		}
		return Range{}, false
	}
	return invalidRange, true
}

// spanIndex is the part [start, end) of a span table that can hold an
// address with a given first byte; an empty part means public.
type spanIndex struct{ start, end uint8 }

// v4Index and v6Index narrow a lookup to the spans sharing the address's
// first byte, so that most public addresses need no search at all. For
// IPv6 the first byte also says which table applies (0x20–0x3f: 2000::/3).
var (
	v4Index = buildIndex(len(v4Spans), func(i int) (uint8, uint8) {
		return uint8(v4Spans[i].first >> 24), uint8(v4Spans[i].last >> 24)
	})
	v6Index = mergeIndex(
		buildIndex(len(v6GlobalSpans), func(i int) (uint8, uint8) {
			return uint8(v6GlobalSpans[i].firstHi >> 56), uint8(v6GlobalSpans[i].lastHi >> 56)
		}),
		buildIndex(len(v6OtherSpans), func(i int) (uint8, uint8) {
			return uint8(v6OtherSpans[i].firstHi >> 56), uint8(v6OtherSpans[i].lastHi >> 56)
		}))
)

// buildIndex returns, for each first byte, the spans (sorted, disjoint) that
// overlap it. bytes returns the first byte of span i's first and last
// address. It runs at package initialisation, so it makes one pass over
// the spans (a few hundred steps), not one per byte: the spans overlapping
// a byte are a contiguous run, from the first that reaches it to the last.
func buildIndex(n int, bytes func(i int) (first, last uint8)) [256]spanIndex {
	if n > 255 {
		panic("netrange: span table too long for a uint8 index")
	}
	var ix [256]spanIndex
	for i := 0; i < n; i++ {
		f, l := bytes(i)
		for b := int(f); b <= int(l); b++ {
			if ix[b].end == 0 { // the first span to reach b
				ix[b].start = uint8(i)
			}
			ix[b].end = uint8(i + 1)
		}
	}
	return ix
}

// mergeIndex takes the 2000::/3 bytes from global and the others from other.
func mergeIndex(global, other [256]spanIndex) [256]spanIndex {
	for b := 0x20; b <= 0x3f; b++ {
		other[b] = global[b]
	}
	return other
}

// PublicHint is the hint of every address_not_public refusal.
const PublicHint = "ocfetch fetches only public internet addresses: private, link-local, metadata and other special addresses are never reached; your own dev server on localhost, 127.0.0.1 or ::1 is reachable through local mode (permissive profile and the port listed in .oc_chat/local_fetch.json)"

// PublicModelHint is PublicHint worded for a model (refusal.Error.ModelHint):
// local mode is the user's to set up, not a file for a model to write.
const PublicModelHint = "only public internet addresses are fetched: private, link-local, metadata and other special addresses are never reached; " +
	"a dev server on localhost, 127.0.0.1 or ::1 is reachable only in local mode, which the user sets up for its port; tell the user if you need it"

// CheckPublic returns nil if addr is public, else an [*refusal.Error] with
// code address_not_public, a message naming the address and its range
// ("169.254.169.254 is in 169.254.0.0/16 (link local)") and a hint.
func CheckPublic(addr netip.Addr) error {
	r, ok := NonPublicRange(addr)
	if !ok {
		return nil
	}
	return notPublic(addr, r)
}

func notPublic(addr netip.Addr, r Range) *refusal.Error {
	if !addr.IsValid() {
		return refusal.New(refusal.AddressNotPublic, "the invalid IP address is not public").WithHints(PublicHint, PublicModelHint)
	}
	if addr.Zone() != "" || !r.Prefix.IsValid() || r.Name == zoneName {
		// A zone is whatever a resolver or caller wrote: quote it sanitized.
		return refusal.Newf(refusal.AddressNotPublic, "%s is %s", safetext.Short(addr.String()), Describe(r)).WithHints(PublicHint, PublicModelHint)
	}
	// The common case, built in one buffer: a refusal at dial time costs
	// two allocations (the message and the error).
	var buf [96]byte
	b := addr.AppendTo(buf[:0])
	b = append(b, " is in "...)
	b = r.Prefix.AppendTo(b)
	b = append(b, " ("...)
	b = append(b, r.Name...)
	b = append(b, ')')
	return &refusal.Error{Code: refusal.AddressNotPublic, Message: string(b), Hint: PublicHint, ModelHint: PublicModelHint}
}

// Describe returns "in 169.254.0.0/16 (link local)", or a phrase for the
// ranges that are not registry prefixes.
func Describe(r Range) string {
	switch {
	case !r.Prefix.IsValid():
		return "not a valid address"
	case r.Name == zoneName:
		return "scoped by an IPv6 zone"
	}
	return "in " + r.String()
}
