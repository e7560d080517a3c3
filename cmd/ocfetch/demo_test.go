package main

import (
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/demo"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestDemo runs the demo in-process: it must pass every one of its own
// checks (exit 0) and show each refusal by its reason code.
func TestDemo(t *testing.T) {
	r := ocfetch(t, cliOptions{}, "demo")
	r.want(t, exitOK, []string{"every step behaved as shown."}, nil)
	if strings.Contains(r.stdout, "✗") {
		t.Errorf("a demo step failed:\n%s", r.stdout)
	}
	for _, code := range []refusal.Code{
		refusal.RedirectOffTarget, refusal.LocalPortNotAllowed, refusal.AddressNotPublic,
		refusal.InvalidHost, refusal.SchemeNotAllowed,
	} {
		if !strings.Contains(r.stdout, "✓ "+string(code)+": ") {
			t.Errorf("the demo does not show %s:\n%s", code, r.stdout)
		}
	}
	if got := strings.Count(r.stdout, "✓ address_not_public: "); got != 2 {
		t.Errorf("address_not_public shown %d times; want 2 (127.0.0.2 and ::ffff:127.0.0.1)", got)
	}
	for _, s := range []string{"**06:12**", "GET 127.0.0.2", "GET ::ffff:127.0.0.1"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the demo output lacks %q", s)
		}
	}
	_, table, ok := strings.Cut(r.stdout, "The audit lines")
	if !ok || !strings.Contains(table, "DECISION") {
		t.Fatalf("the demo prints no audit table:\n%s", r.stdout)
	}
	if strings.Contains(table, demo.Secret) || strings.Contains(table, "/tides") {
		t.Errorf("the audit lines shown hold a path or query:\n%s", table)
	}
}
