package capability

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/ocfetch/ocfetch/safetext"
)

// ErrInvalidPort is wrapped by every port error of [ParseOrigin].
var ErrInvalidPort = errors.New("invalid port")

// ErrInvalidScheme is wrapped by [ParseOrigin] for a scheme that has no
// default port here (anything but http and https).
var ErrInvalidScheme = errors.New("invalid scheme")

// The three hosts of local mode (seed 000), as [NormalizeHost] returns them.
const (
	LocalhostName = "localhost"
	Loopback4     = "127.0.0.1"
	Loopback6     = "::1"
)

// IsLocalHost reports whether a normalised host is one of local mode's
// three hosts: "localhost", "127.0.0.1" or "::1". It is the one such test;
// "127.0.0.2" and "::ffff:127.0.0.1" are not local hosts. A switch, not a
// lookup in a mutable table, so the rule cannot be widened at run time.
func IsLocalHost(host string) bool {
	switch host {
	case LocalhostName, Loopback4, Loopback6:
		return true
	}
	return false
}

// DefaultPort returns the port a URL of scheme uses when it writes none:
// 443 for https, 80 for http, 0 for anything else.
func DefaultPort(scheme string) uint16 {
	switch scheme {
	case "https":
		return 443
	case "http":
		return 80
	}
	return 0
}

// Origin is a parsed, normalised origin: the scheme, the target (host
// normalised by [NormalizeHost], port explicit or the scheme's default) and
// whether the port was written. Everything after the origin parse takes an
// Origin, never a string to parse again.
type Origin struct {
	// Scheme is "http" or "https".
	Scheme string
	Target Target
	// PortWritten reports that the URL wrote the port (":443" included).
	PortWritten bool
}

// ParseOrigin parses the origin of an http or https URL from its parts as
// net/url splits them: scheme (lowercase, as url.Parse leaves it), the
// host without brackets or port (url.URL.Hostname) and the port as written
// (url.URL.Port, "" when none). Errors wrap [ErrInvalidScheme],
// [ErrInvalidHost] or [ErrInvalidPort] and quote at most a short,
// sanitized scheme, host or port.
func ParseOrigin(scheme, hostname, port string) (Origin, error) {
	def := DefaultPort(scheme)
	if def == 0 {
		return Origin{}, fmt.Errorf("%w: %q is not http or https", ErrInvalidScheme, safetext.Short(scheme))
	}
	host, err := NormalizeHost(hostname)
	if err != nil {
		return Origin{}, err
	}
	o := Origin{Scheme: scheme, Target: Target{host: host, port: def}}
	if port != "" {
		p, err := ParsePort(port)
		if err != nil {
			return Origin{}, fmt.Errorf("%w: %v", ErrInvalidPort, err)
		}
		o.Target.port, o.PortWritten = p, true
	}
	return o, nil
}

// OriginOf is [ParseOrigin] of u's scheme, host and port. An authority
// ending in ":" ("http://localhost:/") writes no port, as url.URL.Port
// reads it: local mode then refuses it as local_port_missing.
func OriginOf(u *url.URL) (Origin, error) {
	return ParseOrigin(u.Scheme, u.Hostname(), u.Port())
}

// IsLocal reports whether o's host is one of local mode's three hosts.
func (o Origin) IsLocal() bool { return IsLocalHost(o.Target.host) }

// Host returns the URL authority of o: the host, bracketed when IPv6,
// with the port when it was written ("[::1]:3000", "example.com").
func (o Origin) Host() string {
	if o.PortWritten {
		return o.Target.String()
	}
	return o.Target.HostString()
}

// String returns "scheme://host[:port]" as the URL wrote the port.
func (o Origin) String() string { return o.Scheme + "://" + o.Host() }
