package capability

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/ocfetch/ocfetch/safetext"
)

// ErrInvalidHost is wrapped by every error of [NormalizeHost] and
// [ParseTarget].
var ErrInvalidHost = errors.New("invalid host")

// ErrLookAlike is wrapped, with [ErrInvalidHost], by the error of
// [NormalizeHost] for a non-ASCII spelling that IDNA maps to an IP literal
// or a local host: the message asks for the host in ASCII.
var ErrLookAlike = errors.New("look-alike host spelling")

// MaxHostLength bounds a host name in bytes after mapping (RFC 1035: 253 in
// presentation form without the trailing dot).
const MaxHostLength = 253

// lookup is the UTS #46 profile net/http uses before dialing
// (idna.Lookup): mapping, full-width and circled forms folded, strict
// domain-name rules off so that "_" and similar pass as they do on the wire.
var lookup = idna.Lookup

// NormalizeHost returns the canonical ASCII form of a URL host, as the
// dialer will see it:
//
//   - brackets around an IPv6 literal are removed and the address compressed
//     ("[0:0:0:0:0:0:0:1]" becomes "::1");
//   - an IPv6 zone ("fe80::1%eth0") is refused;
//   - a name is mapped through IDNA UTS #46 to ASCII ("Bücher.example"
//     becomes "xn--bcher-kva.example"), lowercased, and one trailing dot
//     removed; after mapping it holds letters, digits, '-', '_' and '.'
//     only;
//   - a non-ASCII spelling that maps to an IP literal, a numeric last label
//     or one of the three local hosts ("１２７.０.０.１", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ",
//     "local\u00adhost", "localhoſt") is refused: the user is asked for
//     the host in ASCII;
//   - bytes that are not valid UTF-8 (a percent-decoded "%80") are refused,
//     never replaced;
//   - an IPv4 literal is returned in dotted-decimal form; a host whose last
//     label is a number but which is not four canonical decimal octets
//     ("127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0") is refused,
//     because resolvers disagree about what it names.
//
// A host that is empty, cannot be mapped, contains a port, a space, a '%',
// a '/', '@', a control or any other character outside the set above, or is longer than [MaxHostLength] is
// refused with an error wrapping [ErrInvalidHost]. The error never quotes
// the host beyond a short, sanitized prefix.
func NormalizeHost(host string) (string, error) {
	countNormalization()
	if host == "" {
		return "", fmt.Errorf("%w: empty host", ErrInvalidHost)
	}
	if strings.HasPrefix(host, "[") || strings.Contains(host, ":") {
		h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") {
			return "", fmt.Errorf("%w: unbalanced brackets", ErrInvalidHost)
		}
		if strings.Contains(h, "%") {
			return "", fmt.Errorf("%w: IPv6 zone identifiers are not allowed", ErrInvalidHost)
		}
		addr, err := netip.ParseAddr(h)
		if err != nil || !addr.Is6() {
			return "", fmt.Errorf("%w: %q is not an IPv6 address", ErrInvalidHost, safetext.Short(h))
		}
		return addr.String(), nil
	}
	if !utf8.ValidString(host) {
		// Percent-decoded bytes that are not UTF-8 ("%80"): refused, never
		// replaced by U+FFFD and resolved as some other name.
		return "", fmt.Errorf("%w: the host is not valid UTF-8", ErrInvalidHost)
	}
	ascii := host
	mapped := !isASCII(host)
	if mapped {
		var err error
		if ascii, err = lookup.ToASCII(host); err != nil {
			return "", fmt.Errorf("%w: the host cannot be mapped to ASCII (IDNA)", ErrInvalidHost)
		}
	}
	ascii = strings.ToLower(strings.TrimSuffix(ascii, "."))
	if ascii == "" || strings.HasPrefix(ascii, ".") || strings.HasSuffix(ascii, ".") || strings.Contains(ascii, "..") {
		return "", fmt.Errorf("%w: empty label", ErrInvalidHost)
	}
	if len(ascii) > MaxHostLength {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrInvalidHost, MaxHostLength)
	}
	for i := 0; i < len(ascii); i++ {
		if !hostByte(ascii[i]) {
			if mapped {
				return "", fmt.Errorf("%w: host contains a character other than a letter, digit, '-', '_' or '.' after IDNA mapping", ErrInvalidHost)
			}
			return "", fmt.Errorf("%w: host contains a character other than a letter, digit, '-', '_' or '.'", ErrInvalidHost)
		}
	}
	if mapped {
		// A look-alike spelling of an address or of a local host
		// (full-width or ideographic digits and dots, circled letters, a
		// soft hyphen, a letter that case folding maps to ASCII) names
		// what it does not show: refused, and the user asked for ASCII.
		if isIPv4Literal(ascii) || IsLocalHost(ascii) || endsInNumber(ascii) {
			return "", fmt.Errorf("%w: the host is spelled with look-alike characters that IDNA maps to %q; write it in ASCII (%w)", ErrInvalidHost, safetext.Short(ascii), ErrLookAlike)
		}
	}
	if mayBeIPv4(ascii) {
		if addr, err := netip.ParseAddr(ascii); err == nil {
			// Already in its canonical form (what netip accepts as IPv4
			// always is, but ask): no copy.
			var buf [len("255.255.255.255")]byte
			if string(addr.AppendTo(buf[:0])) == ascii {
				return ascii, nil
			}
			return addr.String(), nil
		}
	}
	if endsInNumber(ascii) {
		// WHATWG URL parsing, browsers and glibc's resolver read such a host
		// as an IPv4 address in inet_aton form ("127.1", "0x7f000001",
		// "2130706433", "0177.0.0.1", "0"); Go's resolver says NXDOMAIN.
		// Either way it is not a name anyone registers: refuse it by name.
		return "", fmt.Errorf("%w: %q is a non-canonical IPv4 form; write the address as four decimal octets", ErrInvalidHost, safetext.Short(ascii))
	}
	return ascii, nil
}

// endsInNumber reports whether the last label of host is all decimal digits
// or a 0x-prefixed hexadecimal number: the WHATWG "ends in a number" test.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		for i := 0; i < len(h); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(h[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// hostByte reports whether c may appear in a host name after mapping:
// a lowercase letter, a digit, '-', '_' or '.'.
// mayBeIPv4 reports whether a host of hostByte characters could be an IPv4
// literal at all: one starts with a digit (and holds no ':', which
// hostByte already excludes). A name is not parsed as an address, which
// spares it the error netip.ParseAddr allocates.
func mayBeIPv4(h string) bool {
	return h != "" && h[0] >= '0' && h[0] <= '9'
}

// isIPv4Literal reports whether a host of hostByte characters is an IP
// literal (after hostByte, only IPv4 can be).
func isIPv4Literal(h string) bool {
	if !mayBeIPv4(h) {
		return false
	}
	_, err := netip.ParseAddr(h)
	return err == nil
}

func hostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
