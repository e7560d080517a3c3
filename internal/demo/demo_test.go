package demo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
)

// TestRun runs the demo as a library caller would, with its own managed
// policy path: every step behaves as shown, and the audit table is given
// the one line of each of the seven calls.
func TestRun(t *testing.T) {
	var out strings.Builder
	var shown []audit.Entry
	err := Run(context.Background(), &Options{
		Out:        &out,
		Managed:    testlayers.New(t).Layers.Managed,
		AuditTable: func(entries []audit.Entry) { shown = entries },
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "✗") || !strings.HasSuffix(out.String(), "every step behaved as shown.\n") {
		t.Errorf("the report does not end with every step behaving as shown:\n%s", out.String())
	}
	if len(shown) != 7 {
		t.Errorf("the audit table was given %d lines; want 7, one per call", len(shown))
	}
	for _, e := range shown {
		if strings.Contains(e.Summary, Secret) || strings.Contains(e.Summary, "/tides") {
			t.Errorf("audit line %q holds a path or query", e.Summary)
		}
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

// TestErrorText: the demo's own failures read "demo: …", the CLI's
// message for them, and keep what they wrap.
func TestErrorText(t *testing.T) {
	setup := errors.New("address in use")
	tests := []struct {
		err  *Error
		want string
		is   error
	}{
		{&Error{Op: "listen on 127.0.0.1", Err: setup}, "demo: listen on 127.0.0.1: address in use", setup},
		{&Error{Err: fmt.Errorf("%d step(s) %w", 2, ErrMisbehaved)}, "demo: 2 step(s) did not behave as shown", ErrMisbehaved},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want || !errors.Is(tc.err, tc.is) {
			t.Errorf("Error() = %q (wraps %v: %v); want %q", got, tc.is, errors.Is(tc.err, tc.is), tc.want)
		}
	}
}
