// Package netrange knows which IP addresses are not public: the IANA
// special-purpose registries (IPv4 and IPv6) plus ocfetch's small
// supplement, as generated tables, and [CheckPublic], the refusal that
// names the range.
//
//	if err := netrange.CheckPublic(netip.MustParseAddr("169.254.169.254")); err != nil {
//		// address_not_public: 169.254.169.254 is in 169.254.0.0/16 (link local)
//	}
//
// It is pure: no I/O, no net/http, so that the policy core can classify an
// IP literal without importing the transport. The egress guard applies the
// same tables to every address it dials.
package netrange
