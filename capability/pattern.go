package capability

import (
	"fmt"
	"strings"

	"github.com/ocfetch/ocfetch/safetext"
	"golang.org/x/net/publicsuffix"
)

// HostPattern is the host of a rule: an exact normalised host
// ("example.com", "::1") or a wildcard ("*.example.com") that matches every
// subdomain of example.com at any depth, but never example.com itself.
type HostPattern struct {
	// Host is the normalised exact host, or the suffix after "*." for a
	// wildcard.
	Host     string
	Wildcard bool
}

// ParseHostPattern normalises s as a rule host. A '*' is allowed only as the
// whole first label of a name ("*.example.com"); "*", "*.com"-style patterns
// with a single remaining label, "a*.example.com" and "*.1.2.3.4"-style IP
// wildcards are refused. So is a wildcard over a public suffix ("*.co.uk",
// "*.github.io": every name under it belongs to someone else), judged by
// the Public Suffix List that golang.org/x/net/publicsuffix compiles in
// (the list net/http/cookiejar uses), ICANN and private sections alike;
// the message names the suffix.
func ParseHostPattern(s string) (HostPattern, error) {
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		h, err := NormalizeHost(rest)
		if err != nil {
			return HostPattern{}, err
		}
		if strings.Contains(h, "*") || !strings.Contains(h, ".") || (Target{host: h}).IsIP() {
			return HostPattern{}, fmt.Errorf("%w: wildcard %q must name a domain with at least two labels", ErrInvalidHost, safetext.Short(s))
		}
		if ps, _ := publicsuffix.PublicSuffix(h); ps == h {
			return HostPattern{}, fmt.Errorf("%w: wildcard %q covers the public suffix %q (names under it belong to unrelated owners); name a registered domain, e.g. \"*.example.%s\"",
				ErrInvalidHost, safetext.Short(s), safetext.Short(ps), safetext.Short(ps))
		}
		return HostPattern{Host: h, Wildcard: true}, nil
	}
	if strings.Contains(s, "*") {
		return HostPattern{}, fmt.Errorf("%w: '*' is allowed only as \"*.domain\"", ErrInvalidHost)
	}
	h, err := NormalizeHost(s)
	if err != nil {
		return HostPattern{}, err
	}
	return HostPattern{Host: h}, nil
}

// String returns the pattern as written in rules.json.
func (p HostPattern) String() string {
	if p.Wildcard {
		return "*." + p.Host
	}
	return p.Host
}

// Match reports whether the normalised host matches the pattern.
func (p HostPattern) Match(host string) bool {
	if !p.Wildcard {
		return host == p.Host
	}
	return len(host) > len(p.Host)+1 && strings.HasSuffix(host, p.Host) && host[len(host)-len(p.Host)-1] == '.'
}

// Specificity orders patterns that match the same host: an exact host beats
// any wildcard, a longer wildcard suffix beats a shorter one.
func (p HostPattern) Specificity() int {
	if !p.Wildcard {
		return 1 << 16
	}
	return len(p.Host)
}
