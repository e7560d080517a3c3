package rules

import (
	"errors"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// DefaultPort is the port of a rule target written without one.
const DefaultPort = 443

// ParseRuleTarget parses the HOST[:PORT] argument of `ocfetch rules allow`,
// `deny` and `remove`: "example.com" (port 443), "example.com:8443",
// "*.example.com:8443", "[::1]:8080", "::1" (a bare IPv6 address takes the
// default port). The host is normalised as in rules.json. A bad host is an
// invalid_host refusal, a bad port invalid_arguments; both quote the input
// sanitised.
func ParseRuleTarget(s string) (capability.HostPattern, uint16, error) {
	host, portStr, hasPort := s, "", false
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return capability.HostPattern{}, 0, badHost(s, errors.New("unbalanced brackets"))
		}
		host = s[:end+1]
		if rest := s[end+1:]; rest != "" {
			if rest[0] != ':' {
				return capability.HostPattern{}, 0, badHost(s, errors.New("unexpected text after ']'"))
			}
			portStr, hasPort = rest[1:], true
		}
	case strings.Count(s, ":") == 1:
		i := strings.IndexByte(s, ':')
		host, portStr, hasPort = s[:i], s[i+1:], true
	}
	p, err := capability.ParseHostPattern(host)
	if err != nil {
		return capability.HostPattern{}, 0, badHost(s, err)
	}
	port := uint16(DefaultPort)
	if hasPort {
		if port, err = capability.ParsePort(portStr); err != nil {
			return capability.HostPattern{}, 0, refusal.Newf(refusal.InvalidArguments, "rule target %q: %v", safetext.Short(s), err).
				WithHint("write HOST[:PORT] with a port 1–65535, e.g. example.com:8443 or [::1]:8080").Wrap(err)
		}
	}
	return p, port, nil
}

func badHost(s string, err error) error {
	return refusal.Newf(refusal.InvalidHost, "rule target %q: %v", safetext.Short(s), err).
		WithHint("write HOST[:PORT]: example.com, *.example.com (subdomains only), [::1]:8080").Wrap(err)
}

func errorIsHost(err error) bool { return errors.Is(err, capability.ErrInvalidHost) }
