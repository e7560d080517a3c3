package capability_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/capability"
)

func TestParseHostPattern(t *testing.T) {
	tests := []struct {
		in      string
		want    capability.HostPattern
		wantErr bool
	}{
		{"example.com", capability.HostPattern{Host: "example.com"}, false},
		{"EXAMPLE.com.", capability.HostPattern{Host: "example.com"}, false},
		{"[::1]", capability.HostPattern{Host: "::1"}, false},
		{"127.0.0.1", capability.HostPattern{Host: "127.0.0.1"}, false},
		{"*.example.com", capability.HostPattern{Host: "example.com", Wildcard: true}, false},
		{"*.EXAMPLE.COM.", capability.HostPattern{Host: "example.com", Wildcard: true}, false},
		{"*.example.co.uk", capability.HostPattern{Host: "example.co.uk", Wildcard: true}, false},
		{"*.user.github.io", capability.HostPattern{Host: "user.github.io", Wildcard: true}, false},
		{"co.uk", capability.HostPattern{Host: "co.uk"}, false}, // an exact host, not a wildcard
		{"*.bücher.example", capability.HostPattern{Host: "xn--bcher-kva.example", Wildcard: true}, false},

		{"", capability.HostPattern{}, true},
		{"*", capability.HostPattern{}, true},
		{"*.", capability.HostPattern{}, true},
		{"*.com", capability.HostPattern{}, true},
		{"a*.b.com", capability.HostPattern{}, true},
		{"*a.b.com", capability.HostPattern{}, true},
		{"a.*.com", capability.HostPattern{}, true},
		{"example.*", capability.HostPattern{}, true},
		{"*.*.example.com", capability.HostPattern{}, true},
		{"**.example.com", capability.HostPattern{}, true},
		{"*.1.2.3.4", capability.HostPattern{}, true},
		{"*.[::1]", capability.HostPattern{}, true},
		{"*.127.1", capability.HostPattern{}, true},
		{"127.1", capability.HostPattern{}, true},
		{"*.exa mple.com", capability.HostPattern{}, true},
		{"*.co.uk", capability.HostPattern{}, true},
		{"*.github.io", capability.HostPattern{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := capability.ParseHostPattern(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseHostPattern(%q) = %v, %v; want error %v", tc.in, got, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, capability.ErrInvalidHost) {
				t.Errorf("error %v does not wrap ErrInvalidHost", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseHostPattern(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if err == nil {
				// String is the rules.json form and parses back to itself.
				back, err := capability.ParseHostPattern(got.String())
				if err != nil || back != got {
					t.Errorf("ParseHostPattern(%q) = %v, %v; want %v", got.String(), back, err, got)
				}
			}
		})
	}
}

func TestHostPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		host    string // already normalised, as callers pass it
		want    bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "sub.example.com", false},
		{"example.com", "example.co", false},
		{"*.example.com", "sub.example.com", true},
		{"*.example.com", "sub.sub.example.com", true},
		{"*.example.com", "example.com", false}, // never the apex
		{"*.example.com", "badexample.com", false},
		{"*.example.com", "xexample.com", false},
		{"*.example.com", ".example.com", false},
		{"*.example.com", "example.com.evil", false},
		{"*.example.com", "sub.example.com.evil", false},
		{"*.bücher.example", "a.xn--bcher-kva.example", true},
		{"*.bücher.example", "xn--bcher-kva.example", false},
		{"[::1]", "::1", true},
		{"::1", "::2", false},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+" "+tc.host, func(t *testing.T) {
			p, err := capability.ParseHostPattern(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Match(tc.host); got != tc.want {
				t.Errorf("%v.Match(%q) = %v; want %v", p, tc.host, got, tc.want)
			}
		})
	}
}

// TestHostPatternSpecificity: an exact host beats every wildcard, and a
// longer wildcard suffix beats a shorter one, so sorting the patterns that
// match one host by Specificity puts the most specific first.
func TestHostPatternSpecificity(t *testing.T) {
	var patterns []capability.HostPattern
	for _, s := range []string{"*.example.com", "a.b.example.com", "*.co.example", "*.b.example.com"} {
		p, err := capability.ParseHostPattern(s)
		if err != nil {
			t.Fatal(err)
		}
		patterns = append(patterns, p)
	}
	slices.SortStableFunc(patterns, func(a, b capability.HostPattern) int { return b.Specificity() - a.Specificity() })
	var got []string
	for _, p := range patterns {
		got = append(got, p.String())
	}
	want := []string{"a.b.example.com", "*.b.example.com", "*.example.com", "*.co.example"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order by Specificity mismatch (-want +got):\n%s", diff)
	}
	// The exact host outranks even the longest possible wildcard.
	label := strings.Repeat("a", 60)
	long, err := capability.ParseHostPattern("*." + strings.Join([]string{label, label, label, label}, ".")) // 243 bytes
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := capability.ParseHostPattern("x.y")
	if exact.Specificity() <= long.Specificity() {
		t.Errorf("exact Specificity %d <= wildcard %d", exact.Specificity(), long.Specificity())
	}
}

// A wildcard over a public suffix is refused with a message naming the
// suffix, from the ICANN section (co.uk, com.au) and the private one
// (github.io, s3.amazonaws.com) alike.
func TestParseHostPatternPublicSuffix(t *testing.T) {
	for _, tc := range []struct{ in, suffix string }{
		{"*.co.uk", "co.uk"},
		{"*.CO.UK.", "co.uk"},
		{"*.com.au", "com.au"},
		{"*.github.io", "github.io"},
		{"*.s3.amazonaws.com", "s3.amazonaws.com"},
	} {
		_, err := capability.ParseHostPattern(tc.in)
		if !errors.Is(err, capability.ErrInvalidHost) {
			t.Errorf("ParseHostPattern(%q) = %v; want ErrInvalidHost", tc.in, err)
			continue
		}
		if want := "public suffix \"" + tc.suffix + "\""; !strings.Contains(err.Error(), want) {
			t.Errorf("ParseHostPattern(%q) = %v; want it to say %s", tc.in, err, want)
		}
	}
}
