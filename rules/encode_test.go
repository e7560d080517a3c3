package rules

import "testing"

// TestEncodeBytes pins the bytes rules.json is written as: one rule a
// line, JSON string escaping, a trailing newline; an empty set as "[]".
func TestEncodeBytes(t *testing.T) {
	tests := []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"empty", nil, "{\n  \"schema_version\": 1,\n  \"rules\": []\n}\n"},
		{"two rules", []Rule{
			{Capability: "network", Target: RuleTarget{Schema: "network.target.v1", Host: "example.com", Port: 443}, Decision: Allow},
			{Capability: "network", Target: RuleTarget{Schema: "network.target.v1", Host: "*.a\"<b>&\u2028", Port: 8080}, Decision: Deny},
		}, "{\n  \"schema_version\": 1,\n  \"rules\": [\n" +
			"    {\"capability\": \"network\", \"target\": {\"schema\": \"network.target.v1\", \"host\": \"example.com\", \"port\": 443}, \"decision\": \"allow\"},\n" +
			"    {\"capability\": \"network\", \"target\": {\"schema\": \"network.target.v1\", \"host\": \"*.a\\\"\\u003cb\\u003e\\u0026\\u2028\", \"port\": 8080}, \"decision\": \"deny\"}\n" +
			"  ]\n}\n"},
	}
	for _, tc := range tests {
		if got := string(encode(tc.rules)); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestRuleStringIsJoinHostPort: Rule.String writes what
// net.JoinHostPort does, IPv6 literals bracketed.
func TestRuleStringIsJoinHostPort(t *testing.T) {
	for _, tc := range []struct {
		host string
		port uint16
		want string
	}{
		{"example.com", 443, "allow example.com:443"},
		{"*.example.com", 8080, "allow *.example.com:8080"},
		{"::1", 3000, "allow [::1]:3000"},
		{"127.0.0.1", 1, "allow 127.0.0.1:1"},
	} {
		r := Rule{Capability: "network", Target: RuleTarget{Schema: "network.target.v1", Host: tc.host, Port: tc.port}, Decision: Allow}
		if got := r.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}
