package rules_test

import (
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

func TestParseRuleTarget(t *testing.T) {
	tests := []struct {
		in       string
		wantHost string // pattern.String()
		wantPort uint16
		wantCode refusal.Code
	}{
		{"example.com", "example.com", 443, ""},
		{"example.com:8443", "example.com", 8443, ""},
		{"Example.COM.:80", "example.com", 80, ""},
		{"*.example.com", "*.example.com", 443, ""},
		{"*.example.com:8443", "*.example.com", 8443, ""},
		{"bücher.example", "xn--bcher-kva.example", 443, ""},
		{"[::1]:8080", "::1", 8080, ""},
		{"[::1]", "::1", 443, ""},
		{"::1", "::1", 443, ""},
		{"127.0.0.1:3000", "127.0.0.1", 3000, ""},
		{"", "", 0, refusal.InvalidHost},
		{":443", "", 0, refusal.InvalidHost},
		{"*", "", 0, refusal.InvalidHost},
		{"*.com", "", 0, refusal.InvalidHost},
		{"a.*.example.com", "", 0, refusal.InvalidHost},
		{"[::1", "", 0, refusal.InvalidHost},
		{"[::1]x", "", 0, refusal.InvalidHost},
		{"example.com/path", "", 0, refusal.InvalidHost},
		{"user@example.com", "", 0, refusal.InvalidHost},
		{"127.1", "", 0, refusal.InvalidHost},
		{"example.com:", "", 0, refusal.InvalidArguments},
		{"example.com:0", "", 0, refusal.InvalidArguments},
		{"example.com:65536", "", 0, refusal.InvalidArguments},
		{"example.com:https", "", 0, refusal.InvalidArguments},
		{"example.com:0443", "", 0, refusal.InvalidArguments},
		{"[::1]:", "", 0, refusal.InvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, port, err := rules.ParseRuleTarget(tc.in)
			if tc.wantCode != "" {
				if code := refusal.CodeOf(err); code != tc.wantCode {
					t.Fatalf("ParseRuleTarget(%q) = %v, %d, %v; want code %s", tc.in, p, port, err, tc.wantCode)
				}
				if r, _ := refusal.As(err); r.Hint == "" {
					t.Errorf("refusal %v has no hint", err)
				}
				return
			}
			if err != nil || p.String() != tc.wantHost || port != tc.wantPort {
				t.Errorf("ParseRuleTarget(%q) = %q, %d, %v; want %q, %d", tc.in, p.String(), port, err, tc.wantHost, tc.wantPort)
			}
		})
	}
}
