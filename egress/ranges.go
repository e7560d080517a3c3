package egress

import (
	"net/netip"

	"github.com/ocfetch/ocfetch/netrange"
)

// Range is a block of addresses that is not public ([netrange.Range]).
type Range = netrange.Range

// NonPublicRange returns the non-public range addr is in
// ([netrange.NonPublicRange]): addr is Unmap()ed first.
func NonPublicRange(addr netip.Addr) (Range, bool) { return netrange.NonPublicRange(addr) }

// CheckPublic returns nil if addr is public, else address_not_public naming
// its range ([netrange.CheckPublic]).
func CheckPublic(addr netip.Addr) error { return netrange.CheckPublic(addr) }

const publicHint = netrange.PublicHint

// publicModelHint is publicHint worded for a model.
const publicModelHint = netrange.PublicModelHint

func describe(r Range) string { return netrange.Describe(r) }
