package capability

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/safetext"
)

// Kind is a capability kind.
type Kind string

// KindNetwork is the capability to open a network connection to a target.
const KindNetwork Kind = "network"

// TargetSchemaV1 names the (host, port) target of a network capability in
// rules files and audit lines.
const TargetSchemaV1 = "network.target.v1"

// Target is a normalised network target: its host is the output of
// [NormalizeHost] (never bracketed, a fixed point of NormalizeHost), its
// port 1–65535. The fields are unexported so that the type proves it: the
// only non-zero Targets are those [NewTarget], [ParseTarget],
// [ParseOrigin] / [OriginOf] and [Target.UnmarshalJSON] built, each
// normalising the host once, so nothing downstream (the rules, the guard,
// the audit line) normalises it again. The zero Target names nothing (no
// host, port 0): check [Target.IsZero] where one may be absent.
//
// Its JSON is {"host": "example.com", "port": 443}, as when the fields
// were exported; decoding it normalises or refuses ([Target.UnmarshalJSON]).
type Target struct {
	host string
	port uint16
}

// NewTarget returns the target (host, port) with host normalised by
// [NormalizeHost]. A host that does not normalise is refused with its
// error (wrapping [ErrInvalidHost]); port 0 is refused with an error
// wrapping [ErrInvalidPort]. A host that is already normal is returned as
// it is.
func NewTarget(host string, port uint16) (Target, error) {
	if port == 0 {
		return Target{}, fmt.Errorf("%w: port 0 is not 1–65535", ErrInvalidPort)
	}
	h, err := NormalizeHost(host)
	if err != nil {
		return Target{}, err
	}
	return Target{host: h, port: port}, nil
}

// MustTarget is [NewTarget] for hosts and ports known to be valid (tests,
// constants): it panics if NewTarget returns an error. Never call it on
// input from a user, a file or the network.
func MustTarget(host string, port uint16) Target {
	t, err := NewTarget(host, port)
	if err != nil {
		panic("capability.MustTarget: " + err.Error())
	}
	return t
}

// Host returns the normalised host: [NormalizeHost]'s output, never
// bracketed ("::1", "xn--bcher-kva.example"); "" for the zero Target.
func (t Target) Host() string { return t.host }

// Port returns the port, 1–65535; 0 for the zero Target.
func (t Target) Port() uint16 { return t.port }

// IsZero reports whether t is the zero Target, which names nothing.
func (t Target) IsZero() bool { return t == Target{} }

// Equal reports whether t and u are the same target (as t == u does); it
// lets go-cmp compare values that hold a Target.
func (t Target) Equal(u Target) bool { return t == u }

// String returns host:port, with an IPv6 host bracketed ("[::1]:8080").
func (t Target) String() string {
	return net.JoinHostPort(t.host, strconv.Itoa(int(t.port)))
}

// HostString returns the host as a URL or a host:port writes it: an IPv6
// host bracketed ("[::1]"), any other host as is. It is the one IPv6
// bracketing; [Target.String] adds the port.
func (t Target) HostString() string {
	if strings.IndexByte(t.host, ':') >= 0 {
		return "[" + t.host + "]"
	}
	return t.host
}

// IsIP reports whether the target's host is an IP literal.
func (t Target) IsIP() bool {
	_, err := netip.ParseAddr(t.host)
	return err == nil
}

// Requirement is one capability a prepared call needs before it may run.
type Requirement struct {
	Kind   Kind   `json:"capability"`
	Target Target `json:"target"`
	// Scheme and PortWritten complete the origin the requirement was
	// parsed from ([NetworkOrigin]), for the policy's scheme and local-mode
	// rules. They are not part of the recorded requirement: a rule names
	// the target only. Empty and false for a requirement made by [Network].
	Scheme      string `json:"-"`
	PortWritten bool   `json:"-"`
}

// NetworkOrigin returns the network requirement of o: its target, with the
// scheme and whether the port was written kept for the policy.
func NetworkOrigin(o Origin) Requirement {
	return Requirement{Kind: KindNetwork, Target: o.Target, Scheme: o.Scheme, PortWritten: o.PortWritten}
}

// Origin returns the origin r was made from ([NetworkOrigin]); for a
// requirement made by [Network] the scheme is empty and the port counts as
// written (a bare host:port names its port).
func (r Requirement) Origin() Origin {
	if r.Scheme == "" {
		return Origin{Target: r.Target, PortWritten: true}
	}
	return Origin{Scheme: r.Scheme, Target: r.Target, PortWritten: r.PortWritten}
}

// Network returns the network requirement for t.
func Network(t Target) Requirement { return Requirement{Kind: KindNetwork, Target: t} }

// String returns "network example.com:443".
func (r Requirement) String() string { return string(r.Kind) + " " + r.Target.String() }

// ParsePort parses a decimal port 1–65535. Signs, spaces, leading zeros
// and any other form are refused; a port written with leading zeros
// ("018090") is refused by a message that says so and names the port
// meant, since nothing else reads it the same way (some parsers take a
// leading zero for octal).
func ParsePort(s string) (uint16, error) {
	digits := s != ""
	for i := 0; digits && i < len(s); i++ {
		digits = '0' <= s[i] && s[i] <= '9'
	}
	if !digits {
		return 0, fmt.Errorf("port %q is not 1–65535", safetext.Short(s))
	}
	v := strings.TrimLeft(s, "0")
	n := 0
	if v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || len(v) > 5 {
			n = -1
		}
	}
	switch {
	case n < 1 || n > 65535:
		return 0, fmt.Errorf("port %q is not 1–65535", safetext.Short(s))
	case v != s:
		return 0, fmt.Errorf("port %q has a leading zero; write it as %d", safetext.Short(s), n)
	}
	return uint16(n), nil
}

// ParseTarget parses "host", "host:port", "[v6]" or "[v6]:port" into a
// normalised target, using defaultPort when no port is given. A bare IPv6
// address without brackets is accepted when it is unambiguous (no port).
func ParseTarget(hostport string, defaultPort uint16) (Target, error) {
	host, portStr := hostport, ""
	switch {
	case strings.HasPrefix(hostport, "["):
		end := strings.Index(hostport, "]")
		if end < 0 {
			return Target{}, fmt.Errorf("%w: unbalanced brackets", ErrInvalidHost)
		}
		host = hostport[:end+1]
		rest := hostport[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return Target{}, fmt.Errorf("%w: unexpected text after ']'", ErrInvalidHost)
			}
			portStr = rest[1:]
			if portStr == "" {
				return Target{}, fmt.Errorf("empty port")
			}
		}
	case strings.Count(hostport, ":") == 1:
		i := strings.LastIndex(hostport, ":")
		host, portStr = hostport[:i], hostport[i+1:]
		if portStr == "" {
			return Target{}, fmt.Errorf("empty port")
		}
	}
	h, err := NormalizeHost(host)
	if err != nil {
		return Target{}, err
	}
	port := defaultPort
	if portStr != "" {
		if port, err = ParsePort(portStr); err != nil {
			return Target{}, err
		}
	}
	if port == 0 {
		return Target{}, fmt.Errorf("no port given")
	}
	return Target{host: h, port: port}, nil
}
