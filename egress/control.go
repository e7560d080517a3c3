package egress

import (
	"context"
	"net/netip"
	"syscall"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// dialingKey carries, for one connection attempt of the Guard, the literal
// "ip:port" it hands its dialer and that literal already parsed, so the
// Control check compares a string instead of parsing one again. It is
// unexported, so only the Guard can set it.
type dialingKey struct{}

// dialing is the value under dialingKey. admitted marks local mode's
// loopback address and port, which ControlContext lets through for this
// attempt only.
type dialing struct {
	literal  string
	ap       netip.AddrPort
	admitted bool
}

// withDialing returns ctx carrying the attempt to dial ap, written as
// literal (ap.String()).
func withDialing(ctx context.Context, literal string, ap netip.AddrPort, admitted bool) context.Context {
	return context.WithValue(ctx, dialingKey{}, &dialing{literal: literal, ap: ap, admitted: admitted})
}

// ControlContext is the dial-time check of the default dialer of
// [NewGuard], in the shape of net.Dialer.ControlContext: it runs on the
// address ("ip:port") the socket is about to connect to, just before
// connect(2), and returns nil only for a public address ([CheckPublic]) or,
// under a Guard's dial in local mode, the exact loopback address and port
// admitted for that dial. Every other address, and an address it cannot
// parse, is refused with address_not_public. Because it sees the connected
// address itself, it holds whatever resolved the name (cgo or pure-Go
// resolver) and however the address was reached.
//
// It does not allocate when it admits. When ctx is a Guard's dial and
// address is the literal that dial wrote (the usual case), it compares the
// strings and classifies the address the Guard already parsed; otherwise it
// parses address (a fast path for dotted IPv4, netip.ParseAddrPort for the
// rest). Either way the address is classified again here: a literal the
// Guard carried never admits a different address.
func ControlContext(ctx context.Context, network, address string, _ syscall.RawConn) error {
	d, _ := ctx.Value(dialingKey{}).(*dialing)
	var ap netip.AddrPort
	if d != nil && address == d.literal {
		ap = d.ap
	} else {
		var ok bool
		if ap, ok = parseAddrPort4(address); !ok {
			var err error
			if ap, err = netip.ParseAddrPort(address); err != nil {
				return refusal.Newf(refusal.AddressNotPublic, "cannot check the address being connected to (%s)", safetext.Short(address)).Wrap(err)
			}
		}
	}
	if d != nil && d.admitted && ap.Port() == d.ap.Port() && ap.Addr().Zone() == "" && ap.Addr().Unmap() == d.ap.Addr() {
		return nil
	}
	return CheckPublic(ap.Addr())
}

// parseAddrPort4 parses "a.b.c.d:port" in exactly the form
// netip.ParseAddrPort accepts (decimal octets of 0–255 without leading
// zeros, a decimal port of 0–65535), and reports false for anything else,
// which the caller then parses with netip. FuzzParseAddrPort4 holds it to
// netip's answer.
func parseAddrPort4(s string) (netip.AddrPort, bool) {
	var ip [4]byte
	i := 0
	for k := 0; k < 4; k++ {
		v, digits := 0, 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if digits == 1 && v == 0 {
				return netip.AddrPort{}, false // leading zero
			}
			v = v*10 + int(s[i]-'0')
			digits++
			i++
			if v > 255 {
				return netip.AddrPort{}, false
			}
		}
		if digits == 0 {
			return netip.AddrPort{}, false
		}
		ip[k] = byte(v)
		sep := byte('.')
		if k == 3 {
			sep = ':'
		}
		if i >= len(s) || s[i] != sep {
			return netip.AddrPort{}, false
		}
		i++
	}
	port, digits := 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return netip.AddrPort{}, false
		}
		port = port*10 + int(c-'0')
		digits++
		if port > 65535 {
			return netip.AddrPort{}, false
		}
	}
	if digits == 0 {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(netip.AddrFrom4(ip), uint16(port)), true
}
