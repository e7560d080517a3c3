package rules

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/netrange"
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
// sanitised, but never credentials (user@, user:pass@) or a path, query or
// fragment: a target holding one is refused naming that part, quoting at
// most the host before it.
func ParseRuleTarget(s string) (capability.HostPattern, uint16, error) {
	if strings.Contains(s, "@") {
		return capability.HostPattern{}, 0, refusal.New(refusal.InvalidHost, "rule target: credentials (user@ or user:pass@) are not part of a host").
			WithHint(hostHint).Wrap(capability.ErrInvalidHost)
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		return capability.HostPattern{}, 0, badHost(s[:i], errors.New("a path, query or fragment is not part of a rule target"))
	}
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

// Arg is a rule target as a person writes it for `ocfetch rules allow`,
// `deny` and `remove`, parsed by [ParseArg]: the host pattern and port,
// and Note, a remark on what a URL was read as ("" for none).
type Arg struct {
	Pattern capability.HostPattern
	Port    uint16
	Note    string
}

// String returns the target as rules write it: "example.com:443",
// "*.example.com:8443", "[::1]:8080", "*:443".
func (a Arg) String() string {
	return string(appendHostPort(nil, a.Pattern.String(), a.Port))
}

// ParseArg parses a rule target argument: HOST[:PORT] as
// [ParseRuleTarget] reads it, or an http or https URL, understood for the
// host and port it reaches: http://example.com/ is example.com:80,
// https://example.com/docs is example.com:443, an explicit port wins. A
// rule covers the whole host and port, so the URL's path and query are
// not part of it (Note says so, and says that an http rule for a public
// host serves the proxy only). Another scheme or credentials in the URL
// are an invalid_arguments refusal whose hint says to write HOST[:PORT];
// "*" alone is an invalid_host refusal whose hint names the open-web rule.
// Every refusal has a message and a hint.
func ParseArg(s string) (Arg, error) {
	var a Arg
	if strings.Contains(s, "://") {
		var err error
		if s, a.Note, err = urlTarget(s); err != nil {
			return Arg{}, err
		}
	}
	var err error
	a.Pattern, a.Port, err = ParseRuleTarget(s)
	if err != nil {
		if h, _, _ := strings.Cut(s, ":"); h == "*" {
			return Arg{}, refusal.New(refusal.InvalidHost, "'*' is not a host pattern").
				WithHint("for every public host over https, ocfetch rules allow --public-https (read its --help first)").Wrap(err)
		}
		return Arg{}, err
	}
	return a, nil
}

// errURLCredentials is the message of a URL target with a user:pass@.
const errURLCredentials = "rule target: a URL with credentials (user:pass@) is not a rule"

// urlTarget turns an http or https URL into the HOST:PORT it reaches, and
// the note [ParseArg] gives. Its refusals quote at most the scheme or the
// host, never the rest of s.
func urlTarget(s string) (target, note string, err error) {
	bad := func(format string, args ...any) error {
		return refusal.Newf(refusal.InvalidArguments, format, args...).
			WithHint("write HOST[:PORT], like example.com or example.com:8443 (a URL's http:// means port 80, https:// port 443)")
	}
	u, perr := url.Parse(s)
	if perr != nil || u.Host == "" {
		if why := unreadableURL(s); why != "" {
			return "", "", bad("rule target is not a URL ocfetch can read: %s", why)
		}
		return "", "", bad("%s", errURLCredentials)
	}
	port := ""
	switch strings.ToLower(u.Scheme) {
	case "http":
		port = "80"
	case "https":
		port = "443"
	default:
		return "", "", bad("rule target: scheme %q cannot be fetched", safetext.Short(u.Scheme))
	}
	if u.User != nil {
		return "", "", bad("%s", errURLCredentials)
	}
	if u.Port() != "" {
		port = u.Port()
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	var notes []string
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		notes = append(notes, "a rule covers the whole host and port; the URL's path and query are not part of it")
	}
	if strings.EqualFold(u.Scheme, "http") && !capability.IsLocalHost(strings.ToLower(u.Hostname())) {
		// The rule is right for the proxy; say what it does not do.
		notes = append(notes, "ocfetch get and the MCP server reach public hosts over https only, so this rule serves shell tools through the proxy (ocfetch run); for get, allow "+safetext.ShellQuote(u.Hostname())+" (port 443)")
	}
	return host + ":" + port, strings.Join(notes, "; "), nil
}

// Allowable refuses an allow rule for an address the egress guard always
// refuses (a private, link-local, metadata, … literal), naming the range,
// since such a rule could never let a call through: an invalid_arguments
// refusal. Local mode's loopback hosts (localhost, 127.0.0.1, ::1) stay
// allowable: their rules cover an allowlisted port. A name is allowable:
// what it resolves to is checked at every dial.
func Allowable(pattern capability.HostPattern) error {
	host := pattern.String()
	if host == "localhost" || host == "127.0.0.1" || host == "::1" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name: what it resolves to is checked at every dial
	}
	r, bad := netrange.NonPublicRange(ip)
	if !bad {
		return nil
	}
	return refusal.Newf(refusal.InvalidArguments, "cannot allow %s: the egress guard always refuses it (%s is in %s)", ip, ip, r).
		WithHint("only public addresses can be reached; for a dev server on this machine use local mode: ocfetch local allow PORT, then http://127.0.0.1:PORT/")
}

// unreadableURL names the part of s, a URL url.Parse refused or found no
// host in, that is wrong, quoting at most its scheme-less host: "" when
// the part is the credentials (the caller says [errURLCredentials]). Its
// parts are split as url.Parse splits them: the scheme before "://", the
// authority up to the first '/', '?' or '#', credentials before the
// authority's last '@'.
func unreadableURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	if !isScheme(scheme) {
		return "the text before :// is not a scheme such as https"
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	switch {
	case strings.Contains(authority, "@"):
		return ""
	case authority == "":
		return "it names no host"
	}
	if _, err := url.Parse(scheme + "://" + authority); err != nil {
		return fmt.Sprintf("its host and port %q are not valid", safetext.Short(authority))
	}
	return "its path, query or fragment is not valid"
}

// isScheme reports whether s is a URL scheme as RFC 3986 writes it: a
// letter, then letters, digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// hostHint is the hint of a refused host.
const hostHint = "write HOST[:PORT]: example.com, *.example.com (subdomains only), [::1]:8080"

func badHost(s string, err error) error {
	return refusal.Newf(refusal.InvalidHost, "rule target %q: %v", safetext.Short(s), err).
		WithHint(hostHint).Wrap(err)
}

func errorIsHost(err error) bool { return errors.Is(err, capability.ErrInvalidHost) }
