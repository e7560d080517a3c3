package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Decision is what a rule decides.
type Decision string

// The two decisions.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
)

// Valid reports whether d is [Allow] or [Deny].
func (d Decision) Valid() bool { return d == Allow || d == Deny }

// Rule is one saved decision, as written in rules.json.
type Rule struct {
	Capability capability.Kind `json:"capability"`
	Target     RuleTarget      `json:"target"`
	Decision   Decision        `json:"decision"`
}

// RuleTarget is a rule's network.target.v1 target: Host is an exact host or
// "*.domain" (see capability.HostPattern), Port is 1–65535.
type RuleTarget struct {
	Schema string `json:"schema"`
	Host   string `json:"host"`
	Port   uint16 `json:"port"`
}

// The open-web rule: "allow *:443", written by `ocfetch rules allow
// --public-https`. It is the only rule whose host is "*", and it is valid
// with port 443 and decision allow only. [Set.Decide] never matches it;
// the policy consults it through [Set.PublicHTTPS], for a Fetch-tool
// https origin or a proxy tunnel on port 443 to a host that is not a local
// host, after every deny rule — so a deny still wins, and the egress guard
// still refuses every private, loopback or special-purpose address at dial
// time.
const (
	PublicHTTPSHost        = "*"
	PublicHTTPSPort uint16 = 443
)

// PublicHTTPSRule returns the open-web rule, "allow *:443".
func PublicHTTPSRule() Rule {
	return Rule{
		Capability: capability.KindNetwork,
		Target:     RuleTarget{Schema: capability.TargetSchemaV1, Host: PublicHTTPSHost, Port: PublicHTTPSPort},
		Decision:   Allow,
	}
}

// IsPublicHTTPS reports whether r is the open-web rule's target.
func (r Rule) IsPublicHTTPS() bool { return r.Target.Host == PublicHTTPSHost }

// NewRule returns the network rule deciding d for pattern and port.
func NewRule(d Decision, pattern capability.HostPattern, port uint16) Rule {
	return Rule{
		Capability: capability.KindNetwork,
		Target:     RuleTarget{Schema: capability.TargetSchemaV1, Host: pattern.String(), Port: port},
		Decision:   d,
	}
}

// String returns the rule as "allow example.com:443", "deny *.example.com:8443"
// or "allow [::1]:8080": the form the audit log and messages quote.
func (r Rule) String() string {
	// One allocation (a decision names its rule on every call): what
	// string(Decision) + " " + net.JoinHostPort(host, port) writes.
	var buf [96]byte
	b := append(buf[:0], r.Decision...)
	b = append(b, ' ')
	return string(appendHostPort(b, r.Target.Host, r.Target.Port))
}

// appendHostPort appends a rule target as rules are written: "host:port",
// "*.domain:port", "[v6]:port" (net.JoinHostPort's form).
func appendHostPort(b []byte, host string, port uint16) []byte {
	if strings.IndexByte(host, ':') >= 0 {
		b = append(b, '[')
		b = append(b, host...)
		b = append(b, ']')
	} else {
		b = append(b, host...)
	}
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(port), 10)
}

// normalize validates r and returns it with its host in normal form
// ("Bücher.Example" becomes "xn--bcher-kva.example") and its parsed
// pattern.
func normalize(r Rule) (Rule, capability.HostPattern, error) {
	if r.Capability != capability.KindNetwork {
		return r, capability.HostPattern{}, fmt.Errorf("unknown capability %q (want %q)", safetext.Short(string(r.Capability)), capability.KindNetwork)
	}
	if r.Target.Schema != capability.TargetSchemaV1 {
		return r, capability.HostPattern{}, fmt.Errorf("unknown target schema %q (want %q)", safetext.Short(r.Target.Schema), capability.TargetSchemaV1)
	}
	if r.IsPublicHTTPS() {
		// The open-web rule: exactly "allow *:443"; a file that says
		// anything else with host "*" fails closed.
		if r.Target.Port != PublicHTTPSPort || r.Decision != Allow {
			return r, capability.HostPattern{}, fmt.Errorf("host \"*\" is the open-web rule, allow *:443 only (ocfetch rules allow --public-https); got %s", safetext.Short(r.String()))
		}
		return r, capability.HostPattern{Host: PublicHTTPSHost}, nil
	}
	p, err := capability.ParseHostPattern(r.Target.Host)
	if err != nil {
		return r, capability.HostPattern{}, fmt.Errorf("host: %w", err)
	}
	if r.Target.Port == 0 {
		return r, capability.HostPattern{}, fmt.Errorf("port 0 is not 1–65535")
	}
	if !r.Decision.Valid() {
		return r, capability.HostPattern{}, fmt.Errorf("decision %q is not %q or %q", safetext.Short(string(r.Decision)), Allow, Deny)
	}
	r.Target.Host = p.String()
	return r, p, nil
}

// compareRules is the stable order of rules.json and [Set.Rules]:
// capability, host, port, then decision.
func compareRules(a, b Rule) int {
	if c := strings.Compare(string(a.Capability), string(b.Capability)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Target.Host, b.Target.Host); c != 0 {
		return c
	}
	if a.Target.Port != b.Target.Port {
		if a.Target.Port < b.Target.Port {
			return -1
		}
		return 1
	}
	return strings.Compare(string(a.Decision), string(b.Decision))
}

// key indexes rules: for exact rules the host, for wildcard rules the
// suffix after "*.".
type key struct {
	kind capability.Kind
	host string
	port uint16
}

// slot holds the rules saved for one key: normally one, but a hand-edited
// file may hold both an allow and a deny for the same target.
type slot struct {
	allow, deny int32 // 1 + the rule's index in Set.rules; 0: none
}

// Set is a loaded, immutable rule set. Lookups cost O(labels of the host),
// independent of the number of rules. The zero value and nil are empty
// sets. A Set is safe for concurrent use.
type Set struct {
	rules  []Rule   // normalised, sorted
	texts  []string // texts[i] is rules[i].String(), written once here
	exact  map[key]slot
	wild   map[key]slot
	public int32 // 1 + the open-web rule's index, if present; never in exact or wild
}

// Match is the outcome of [Set.Decide]: the decision and the rule that
// decided it.
type Match struct {
	Decision Decision
	Rule     Rule
}

// String returns the deciding rule, "allow example.com:443".
func (m Match) String() string { return m.Rule.String() }

// NewSet validates and normalises rules into a Set. An invalid rule is an
// error naming its index; it is a plain error (not a refusal), for callers
// that build sets in memory. Duplicate and conflicting rules are kept:
// [Set.Decide] lets deny win.
func NewSet(rules ...Rule) (*Set, error) {
	type parsed struct {
		r Rule
		p capability.HostPattern
	}
	ps := make([]parsed, 0, len(rules))
	for i, r := range rules {
		nr, p, err := normalize(r)
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		ps = append(ps, parsed{nr, p})
	}
	slices.SortStableFunc(ps, func(a, b parsed) int { return compareRules(a.r, b.r) })
	s := &Set{
		rules: make([]Rule, len(ps)),
		texts: make([]string, len(ps)),
		exact: make(map[key]slot),
		wild:  make(map[key]slot),
	}
	for i, x := range ps {
		s.rules[i] = x.r
		s.texts[i] = x.r.String()
		r, ref := &s.rules[i], int32(i+1)
		if r.IsPublicHTTPS() {
			s.public = ref
			continue
		}
		m := s.exact
		if x.p.Wildcard {
			m = s.wild
		}
		k := key{r.Capability, x.p.Host, r.Target.Port}
		sl := m[k]
		if r.Decision == Deny {
			sl.deny = ref
		} else {
			sl.allow = ref
		}
		m[k] = sl
	}
	// A deny rule for an IPv4 address also denies its IPv4-mapped IPv6
	// spelling ([::ffff:a.b.c.d], which the dialer connects to as a.b.c.d),
	// and the other way round; a deny written in the target's own spelling
	// stays the one reported. An allow covers its own spelling only.
	for i := range s.rules {
		r := &s.rules[i]
		if r.Decision != Deny || r.IsPublicHTTPS() {
			continue
		}
		alias, ok := ipv4Alias(r.Target.Host)
		if !ok {
			continue
		}
		k := key{r.Capability, alias, r.Target.Port}
		if sl := s.exact[k]; sl.deny == 0 {
			sl.deny = int32(i + 1)
			s.exact[k] = sl
		}
	}
	return s, nil
}

// ipv4Alias returns the other spelling of the same IPv4 address: for
// "a.b.c.d" its IPv4-mapped IPv6 form "::ffff:a.b.c.d", for an IPv4-mapped
// IPv6 address its IPv4 form; false for a name, a wildcard suffix or
// another IPv6 address. host is normalised (capability.NormalizeHost).
func ipv4Alias(host string) (string, bool) {
	if host == "" || (host[0] < '0' || host[0] > '9') && strings.IndexByte(host, ':') < 0 {
		return "", false // a name
	}
	a, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return "", false
	case a.Is4():
		return netip.AddrFrom16(a.As16()).String(), true
	case a.Is4In6():
		return a.Unmap().String(), true
	}
	return "", false
}

// Len returns the number of rules.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Rules returns a copy of the rules, normalised and in the stable order of
// rules.json (capability, host, port, decision).
func (s *Set) Rules() []Rule {
	if s == nil {
		return nil
	}
	return slices.Clone(s.rules)
}

// Saved returns the rule s holds for r's target — the same capability,
// host pattern and port: the rule [Add] would replace with r — and whether
// it holds one. r's host is normalised, as [NewRule] makes it. Of a
// conflicting pair a hand-written file may hold, it is the deny rule (the
// later in the order of [Set.Rules]).
func (s *Set) Saved(r Rule) (Rule, bool) {
	var saved Rule
	found := false
	for _, x := range s.Rules() {
		if sameTarget(x, r) {
			saved, found = x, true
		}
	}
	return saved, found
}

// PublicHTTPS returns the open-web rule ("allow *:443") when the set holds
// it. [Set.Decide] never matches it: whether it applies to an origin
// (https or a tunnel, port 443, not a local host, no deny rule, not
// forbidden by a managed policy) is the policy's decision.
func (s *Set) PublicHTTPS() (Rule, bool) {
	r, _, ok := s.PublicHTTPSText()
	return r, ok
}

// PublicHTTPSText is [Set.PublicHTTPS] with the rule's text
// ([Rule.String]), written once when the set was built.
func (s *Set) PublicHTTPSText() (Rule, string, bool) {
	if s == nil || s.public == 0 {
		return Rule{}, "", false
	}
	return s.rules[s.public-1], s.texts[s.public-1], true
}

// Decide returns the saved decision for req, and false when no rule
// matches. A rule matches when its capability and port equal the
// requirement's and its host pattern matches the requirement's host.
//
// Deny wins: if any matching rule denies, the decision is [Deny], even when
// an exact allow rule also matches. Among the matching rules of the
// deciding kind, the most specific one is reported: an exact host beats a
// longer wildcard ("*.api.example.com"), which beats a shorter one
// ("*.example.com").
//
// req.Target's host is normalised by construction (capability.Target), so
// "EXAMPLE.com." or "bücher.example" arrive as the rules' own spelling and
// cannot slip past a deny rule. An IPv4 address has a second spelling that
// normalisation keeps apart (local mode must not take "::ffff:127.0.0.1"
// for "127.0.0.1") but the dialer connects to as the same address: its
// IPv4-mapped IPv6 form. A deny rule for either spelling matches both; an
// allow rule matches its own spelling only.
func (s *Set) Decide(req capability.Requirement) (Match, bool) {
	m, _, ok := s.DecideText(req)
	return m, ok
}

// DecideText is [Set.Decide] with the deciding rule's text
// ([Rule.String]), written once when the set was built, so that a
// decision naming its rule allocates nothing.
func (s *Set) DecideText(req capability.Requirement) (Match, string, bool) {
	if s == nil || len(s.rules) == 0 {
		return Match{}, "", false
	}
	host := req.Target.Host()
	var allow int32
	// Candidates in order of specificity: the exact host, then the
	// wildcards for each proper suffix, longest first. The first deny is
	// the most specific deny, and deny wins, so it decides at once.
	if sl, ok := s.exact[key{req.Kind, host, req.Target.Port()}]; ok {
		if sl.deny != 0 {
			return Match{Deny, s.rules[sl.deny-1]}, s.texts[sl.deny-1], true
		}
		allow = sl.allow
	}
	if len(s.wild) > 0 {
		for i := 0; i < len(host); i++ {
			if host[i] != '.' {
				continue
			}
			sl, ok := s.wild[key{req.Kind, host[i+1:], req.Target.Port()}]
			if !ok {
				continue
			}
			if sl.deny != 0 {
				return Match{Deny, s.rules[sl.deny-1]}, s.texts[sl.deny-1], true
			}
			if allow == 0 {
				allow = sl.allow
			}
		}
	}
	if allow != 0 {
		return Match{Allow, s.rules[allow-1]}, s.texts[allow-1], true
	}
	return Match{}, "", false
}

// invalid returns the rules_invalid refusal for the file at path.
func invalid(path string, format string, args ...any) *refusal.Error {
	return refusal.Newf(refusal.RulesInvalid, "rules file %s: %s", path, fmt.Sprintf(format, args...)).
		WithHints("fix or remove "+path+" (it must be "+rulesShape+"); `ocfetch rules list` shows whether it loads",
			refusal.AskUserToRun("ocfetch rules list")+" once they have fixed or removed "+path+" (it must be "+rulesShape+")")
}

// rulesShape is what a rules file must be, in a hint.
const rulesShape = `{"schema_version": 1, "rules": [...]}`
