package main

import (
	"slices"
	"strings"
	"testing"

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
	if strings.Contains(table, demoSecret) || strings.Contains(table, "/tides") {
		t.Errorf("the audit lines shown hold a path or query:\n%s", table)
	}
}

// TestDemoCheck: a step that misbehaves is marked ✗ and counted, which is
// what makes the demo exit 1.
func TestDemoCheck(t *testing.T) {
	var b strings.Builder
	d := &demoRun{w: &b}
	d.check(true, "fine")
	d.check(false, "not %s", "fine")
	if d.failed != 1 || b.String() != "✓ fine\n✗ not fine\n" {
		t.Errorf("demoRun = %d failed, %q; want 1 failed, a ✓ and a ✗ line", d.failed, b.String())
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"exactly10c", 10, []string{"exactly10c"}},
		{"averyveryverylongword and more", 8, []string{"averyveryverylongword and more"}},
		{"naïve café über straße", 11, []string{"naïve café", "über straße"}},
	}
	for _, tc := range tests {
		if got := wrap(tc.in, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q; want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
