package rules_test

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/rules"
)

// mustSet builds a set from "allow HOST PORT"-style triples.
func mustSet(t testing.TB, rs ...rules.Rule) *rules.Set {
	t.Helper()
	s, err := rules.NewSet(rs...)
	if err != nil {
		t.Fatalf("NewSet: %v", err)
	}
	return s
}

func rule(d rules.Decision, host string, port uint16) rules.Rule {
	return rules.Rule{
		Capability: capability.KindNetwork,
		Target:     rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: host, Port: port},
		Decision:   d,
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		rules []rules.Rule
		host  string
		port  uint16
		want  string // the deciding rule, "" for no match
	}{
		{"exact allow", []rules.Rule{rule(rules.Allow, "example.com", 443)}, "example.com", 443, "allow example.com:443"},
		{"exact deny", []rules.Rule{rule(rules.Deny, "example.com", 443)}, "example.com", 443, "deny example.com:443"},
		{"no rules", nil, "example.com", 443, ""},
		{"other host", []rules.Rule{rule(rules.Allow, "example.com", 443)}, "example.org", 443, ""},
		{"port mismatch", []rules.Rule{rule(rules.Allow, "example.com", 443)}, "example.com", 8443, ""},
		{"wildcard port mismatch", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "api.example.com", 80, ""},
		{"exact rule does not cover a subdomain", []rules.Rule{rule(rules.Allow, "example.com", 443)}, "api.example.com", 443, ""},
		{"wildcard matches a subdomain", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "api.example.com", 443, "allow *.example.com:443"},
		{"wildcard matches a deep subdomain", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "a.b.c.example.com", 443, "allow *.example.com:443"},
		{"wildcard does not match the apex", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "example.com", 443, ""},
		{"wildcard does not match a suffix that is not a label", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "badexample.com", 443, ""},
		{"wildcard does not match a longer TLD", []rules.Rule{rule(rules.Allow, "*.example.com", 443)}, "api.example.com.evil", 443, ""},
		{"deny wildcard wins over exact allow", []rules.Rule{
			rule(rules.Allow, "api.example.com", 443), rule(rules.Deny, "*.example.com", 443),
		}, "api.example.com", 443, "deny *.example.com:443"},
		{"deny wildcard does not touch the apex allow", []rules.Rule{
			rule(rules.Allow, "example.com", 443), rule(rules.Deny, "*.example.com", 443),
		}, "example.com", 443, "allow example.com:443"},
		{"deny on another port does not count", []rules.Rule{
			rule(rules.Allow, "api.example.com", 443), rule(rules.Deny, "*.example.com", 8443),
		}, "api.example.com", 443, "allow api.example.com:443"},
		{"conflicting exact rules: deny wins", []rules.Rule{
			rule(rules.Allow, "example.com", 443), rule(rules.Deny, "example.com", 443),
		}, "example.com", 443, "deny example.com:443"},
		{"duplicate rules", []rules.Rule{
			rule(rules.Allow, "example.com", 443), rule(rules.Allow, "example.com", 443),
		}, "example.com", 443, "allow example.com:443"},
		{"most specific allow: exact", specificity(rules.Allow), "x.api.example.com", 443, "allow x.api.example.com:443"},
		{"most specific allow: longer wildcard", specificity(rules.Allow), "y.api.example.com", 443, "allow *.api.example.com:443"},
		{"most specific allow: shorter wildcard", specificity(rules.Allow), "z.example.com", 443, "allow *.example.com:443"},
		{"most specific deny: exact", specificity(rules.Deny), "x.api.example.com", 443, "deny x.api.example.com:443"},
		{"most specific deny: longer wildcard", specificity(rules.Deny), "y.api.example.com", 443, "deny *.api.example.com:443"},
		{"most specific deny reported over a more specific allow", []rules.Rule{
			rule(rules.Allow, "x.api.example.com", 443), rule(rules.Allow, "*.api.example.com", 443), rule(rules.Deny, "*.example.com", 443),
		}, "x.api.example.com", 443, "deny *.example.com:443"},
		{"IDNA: Unicode rule, ASCII target", []rules.Rule{rule(rules.Allow, "bücher.example", 443)}, "xn--bcher-kva.example", 443, "allow xn--bcher-kva.example:443"},
		{"IDNA: ASCII rule, Unicode target", []rules.Rule{rule(rules.Allow, "xn--bcher-kva.example", 443)}, "Bücher.example", 443, "allow xn--bcher-kva.example:443"},
		{"IDNA: wildcard", []rules.Rule{rule(rules.Deny, "*.bücher.example", 443)}, "www.xn--bcher-kva.example", 443, "deny *.xn--bcher-kva.example:443"},
		{"unnormalised target: case and trailing dot", []rules.Rule{rule(rules.Deny, "example.com", 443)}, "EXAMPLE.com.", 443, "deny example.com:443"},
		{"unnormalised target: full-width", []rules.Rule{rule(rules.Deny, "*.example.com", 443)}, "ａｐｉ.example.com", 443, "deny *.example.com:443"},
		{"IPv6", []rules.Rule{rule(rules.Allow, "::1", 8080)}, "::1", 8080, "allow [::1]:8080"},
		{"IPv6 unnormalised target", []rules.Rule{rule(rules.Allow, "::1", 8080)}, "0:0:0:0:0:0:0:1", 8080, "allow [::1]:8080"},
		{"IPv4", []rules.Rule{rule(rules.Allow, "93.184.215.14", 443)}, "93.184.215.14", 443, "allow 93.184.215.14:443"},
		// An IPv4-mapped IPv6 literal ([::ffff:a.b.c.d]) is dialled as the
		// IPv4 address: a deny rule written in either spelling covers the
		// other. An allow covers its own spelling only.
		{"IPv4 deny covers the IPv4-mapped spelling", []rules.Rule{rule(rules.Deny, "93.184.215.14", 443)}, "::ffff:93.184.215.14", 443, "deny 93.184.215.14:443"},
		{"IPv4 deny covers the IPv4-mapped spelling in hex", []rules.Rule{rule(rules.Deny, "93.184.215.14", 443)}, "::ffff:5db8:d70e", 443, "deny 93.184.215.14:443"},
		{"IPv4-mapped deny covers the IPv4 spelling", []rules.Rule{rule(rules.Deny, "::ffff:93.184.215.14", 443)}, "93.184.215.14", 443, "deny [::ffff:93.184.215.14]:443"},
		{"IPv4 deny over an IPv4-mapped allow", []rules.Rule{rule(rules.Allow, "::ffff:93.184.215.14", 443), rule(rules.Deny, "93.184.215.14", 443)}, "::ffff:93.184.215.14", 443, "deny 93.184.215.14:443"},
		{"IPv4 deny, other port", []rules.Rule{rule(rules.Deny, "93.184.215.14", 443)}, "::ffff:93.184.215.14", 8443, ""},
		{"IPv4 allow does not cover the IPv4-mapped spelling", []rules.Rule{rule(rules.Allow, "93.184.215.14", 443)}, "::ffff:93.184.215.14", 443, ""},
		{"IPv4-mapped allow does not cover the IPv4 spelling", []rules.Rule{rule(rules.Allow, "::ffff:93.184.215.14", 443)}, "93.184.215.14", 443, ""},
		{"IPv6 deny does not cover another IPv6 address", []rules.Rule{rule(rules.Deny, "2606:4700::1111", 443)}, "2606:4700::1112", 443, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSet(t, tc.rules...)
			m, ok := s.Decide(capability.Network(capability.MustTarget(tc.host, tc.port)))
			got := ""
			if ok {
				got = m.Rule.String()
				if m.Decision != m.Rule.Decision {
					t.Errorf("Match.Decision = %q but Match.Rule = %q", m.Decision, m.Rule)
				}
			}
			if got != tc.want {
				t.Errorf("Decide(%s:%d) = %q, %v; want %q", tc.host, tc.port, got, ok, tc.want)
			}
			// DecideText: the same match, with the text written at parse time.
			tm, text, tok := s.DecideText(capability.Network(capability.MustTarget(tc.host, tc.port)))
			if tm != m || tok != ok || text != got {
				t.Errorf("DecideText(%s:%d) = %v, %q, %v; want %v, %q, %v", tc.host, tc.port, tm, text, tok, m, got, ok)
			}
		})
	}
}

func TestPublicHTTPSText(t *testing.T) {
	tests := []struct {
		name  string
		rules []rules.Rule
		want  string
	}{
		{"none", []rules.Rule{rule(rules.Allow, "example.com", 443)}, ""},
		{"open web", []rules.Rule{rule(rules.Allow, "example.com", 443), rule(rules.Allow, rules.PublicHTTPSHost, 443)}, "allow *:443"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSet(t, tc.rules...)
			r, text, ok := s.PublicHTTPSText()
			pr, pok := s.PublicHTTPS()
			if r != pr || ok != pok || ok != (tc.want != "") || text != tc.want || (ok && r.String() != text) {
				t.Errorf("PublicHTTPSText() = %v, %q, %v (PublicHTTPS %v, %v); want %q", r, text, ok, pr, pok, tc.want)
			}
		})
	}
	var s *rules.Set
	if _, text, ok := s.PublicHTTPSText(); ok || text != "" {
		t.Errorf("nil set: PublicHTTPSText() = %q, %v; want none", text, ok)
	}
}

// specificity returns exact, longer-wildcard and shorter-wildcard rules
// with decision d for x.api.example.com.
func specificity(d rules.Decision) []rules.Rule {
	return []rules.Rule{rule(d, "*.example.com", 443), rule(d, "x.api.example.com", 443), rule(d, "*.api.example.com", 443)}
}

func TestDecideOtherCapability(t *testing.T) {
	s := mustSet(t, rule(rules.Allow, "example.com", 443))
	req := capability.Requirement{Kind: "filesystem", Target: capability.MustTarget("example.com", 443)}
	if m, ok := s.Decide(req); ok {
		t.Errorf("Decide(%v) = %v; want no match for another capability", req, m)
	}
}

func TestNilSet(t *testing.T) {
	var s *rules.Set
	if _, ok := s.Decide(capability.Network(capability.MustTarget("example.com", 443))); ok || s.Len() != 0 || s.Rules() != nil {
		t.Errorf("nil set: Decide ok = %v, Len = %d, Rules = %v; want an empty set", ok, s.Len(), s.Rules())
	}
}

func TestNewSetRejectsInvalidRules(t *testing.T) {
	tests := []struct {
		name string
		r    rules.Rule
	}{
		{"capability", rules.Rule{Capability: "filesystem", Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: "example.com", Port: 443}, Decision: rules.Allow}},
		{"schema", rules.Rule{Capability: capability.KindNetwork, Target: rules.RuleTarget{Host: "example.com", Port: 443}, Decision: rules.Allow}},
		{"host", rule(rules.Allow, "*.com", 443)},
		{"port", rule(rules.Allow, "example.com", 0)},
		{"decision", rule("ask", "example.com", 443)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s, err := rules.NewSet(rule(rules.Allow, "ok.example", 443), tc.r); err == nil {
				t.Errorf("NewSet(%v) = %d rules, nil error; want an error", tc.r, s.Len())
			}
		})
	}
}

func TestRulesSortedCopy(t *testing.T) {
	s := mustSet(t, rule(rules.Allow, "b.example", 443), rule(rules.Deny, "a.example", 8443), rule(rules.Allow, "a.example", 443))
	got := s.Rules()
	want := []rules.Rule{rule(rules.Allow, "a.example", 443), rule(rules.Deny, "a.example", 8443), rule(rules.Allow, "b.example", 443)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Rules() mismatch (-want +got):\n%s", diff)
	}
	got[0].Decision = rules.Deny
	if s.Rules()[0].Decision != rules.Allow {
		t.Errorf("modifying the slice Rules() returned changed the set")
	}
}

func TestRuleString(t *testing.T) {
	tests := []struct {
		r    rules.Rule
		want string
	}{
		{rule(rules.Allow, "example.com", 443), "allow example.com:443"},
		{rule(rules.Deny, "*.example.com", 8443), "deny *.example.com:8443"},
		{rule(rules.Allow, "::1", 8080), "allow [::1]:8080"},
	}
	for _, tc := range tests {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}

// TestSaved: Saved finds the rule for the same capability, host pattern
// and port whatever its decision (the one Add would replace), and of a
// hand-written conflicting pair the deny rule.
func TestSaved(t *testing.T) {
	s := mustSet(t,
		rule(rules.Allow, "example.com", 443),
		rule(rules.Allow, "*.example.com", 443),
		rule(rules.Allow, "both.example", 443), rule(rules.Deny, "both.example", 443))
	for _, tc := range []struct {
		query rules.Rule
		want  string // "" for none
	}{
		{rule(rules.Deny, "example.com", 443), "allow example.com:443"},
		{rule(rules.Allow, "*.example.com", 443), "allow *.example.com:443"},
		{rule(rules.Allow, "example.com", 8443), ""},
		{rule(rules.Allow, "www.example.com", 443), ""},
		{rule(rules.Allow, "both.example", 443), "deny both.example:443"},
	} {
		got, ok := s.Saved(tc.query)
		if (tc.want != "") != ok || (ok && got.String() != tc.want) {
			t.Errorf("Saved(%s) = %s, %t; want %q", tc.query, got, ok, tc.want)
		}
	}
	if _, ok := (*rules.Set)(nil).Saved(rule(rules.Allow, "example.com", 443)); ok {
		t.Error("a nil set holds a rule")
	}
}

// FuzzDenyCoversEverySpellingOfAnAddress: a deny rule for an IP address
// refuses every spelling of a target that the dialer connects to as that
// address (after normalisation, the address itself or its IPv4-mapped
// form), whatever allow rules the set also holds for that spelling.
func FuzzDenyCoversEverySpellingOfAnAddress(f *testing.F) {
	for _, s := range [][2]string{
		{"93.184.215.14", "::ffff:93.184.215.14"},
		{"93.184.215.14", "[::ffff:5db8:d70e]"},
		{"::ffff:93.184.215.14", "93.184.215.14"},
		{"2606:4700::1111", "2606:4700:0:0:0:0:0:1111"},
		{"example.com", "EXAMPLE.com."},
	} {
		f.Add(s[0], s[1], uint16(443))
	}
	f.Fuzz(func(t *testing.T, ruleHost, reqHost string, port uint16) {
		if port == 0 {
			return
		}
		deny, err := capability.NewTarget(ruleHost, port)
		if err != nil {
			return
		}
		req, err := capability.NewTarget(reqHost, port)
		if err != nil {
			return
		}
		da, err1 := netip.ParseAddr(deny.Host())
		ra, err2 := netip.ParseAddr(req.Host())
		same := deny.Host() == req.Host() || err1 == nil && err2 == nil && da.Unmap() == ra.Unmap()
		if !same {
			return
		}
		s := mustSet(t, rule(rules.Allow, req.Host(), port), rule(rules.Deny, deny.Host(), port))
		if m, ok := s.Decide(capability.Network(req)); !ok || m.Decision != rules.Deny {
			t.Fatalf("deny %s, allow %s: Decide(%s) = %v, %v; want the deny", deny, req, req, m, ok)
		}
	})
}
