package capability_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/capability"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		defaultPort uint16
		want        capability.Target
		wantErr     bool
		invalidHost bool // the error wraps ErrInvalidHost
	}{
		{"name, default port", "example.com", 443, capability.MustTarget("example.com", 443), false, false},
		{"name with port", "example.com:8080", 443, capability.MustTarget("example.com", 8080), false, false},
		{"name normalised", "EXAMPLE.com.:443", 80, capability.MustTarget("example.com", 443), false, false},
		{"IDNA name", "Bücher.example:443", 0, capability.MustTarget("xn--bcher-kva.example", 443), false, false},
		{"IPv4 with port", "1.2.3.4:80", 443, capability.MustTarget("1.2.3.4", 80), false, false},
		{"bracketed IPv6 with port", "[::1]:8080", 443, capability.MustTarget("::1", 8080), false, false},
		{"bracketed IPv6, default port", "[::1]", 443, capability.MustTarget("::1", 443), false, false},
		{"bare IPv6, default port", "::1", 443, capability.MustTarget("::1", 443), false, false},
		{"uncompressed IPv6", "[0:0:0:0:0:0:0:1]:1", 443, capability.MustTarget("::1", 1), false, false},
		{"highest port", "example.com:65535", 443, capability.MustTarget("example.com", 65535), false, false},

		{"empty port", "example.com:", 443, capability.Target{}, true, false},
		{"empty port after brackets", "[::1]:", 443, capability.Target{}, true, false},
		{"no host", ":443", 443, capability.Target{}, true, true},
		{"empty", "", 443, capability.Target{}, true, true},
		{"port 0", "example.com:0", 443, capability.Target{}, true, false},
		{"port 65536", "example.com:65536", 443, capability.Target{}, true, false},
		{"port with sign", "example.com:+1", 443, capability.Target{}, true, false},
		{"negative port", "example.com:-1", 443, capability.Target{}, true, false},
		{"port with leading zero", "example.com:080", 443, capability.Target{}, true, false},
		{"port with space", "example.com: 80", 443, capability.Target{}, true, false},
		{"port named", "example.com:https", 443, capability.Target{}, true, false},
		{"no port and no default", "example.com", 0, capability.Target{}, true, false},
		{"text after brackets", "[::1]x", 443, capability.Target{}, true, true},
		{"unbalanced brackets", "[::1:80", 443, capability.Target{}, true, true},
		{"bracketed IPv4", "[1.2.3.4]:80", 443, capability.Target{}, true, true},
		{"zone", "[fe80::1%25eth0]:80", 443, capability.Target{}, true, true},
		{"non-canonical IPv4", "127.1:80", 443, capability.Target{}, true, true},
		{"userinfo", "user@example.com:80", 443, capability.Target{}, true, true},
		{"two colons, not IPv6", "a:b:c", 443, capability.Target{}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := capability.ParseTarget(tc.in, tc.defaultPort)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseTarget(%q, %d) = %v, %v; want error %v", tc.in, tc.defaultPort, got, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseTarget(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if err != nil && errors.Is(err, capability.ErrInvalidHost) != tc.invalidHost {
				t.Errorf("errors.Is(%v, ErrInvalidHost) = %v; want %v", err, !tc.invalidHost, tc.invalidHost)
			}
		})
	}
}

func TestParsePort(t *testing.T) {
	const notPort = "is not 1–65535"
	tests := []struct {
		in      string
		want    uint16
		wantErr string // a part of the message; "" for none
	}{
		{"1", 1, ""},
		{"80", 80, ""},
		{"443", 443, ""},
		{"65535", 65535, ""},
		{"", 0, notPort},
		{"0", 0, notPort},
		{"00", 0, notPort},
		{"080", 0, `port "080" has a leading zero; write it as 80`},
		{"018090", 0, `port "018090" has a leading zero; write it as 18090`},
		{"00000000443", 0, "has a leading zero; write it as 443"},
		{"065536", 0, notPort},
		{"65536", 0, notPort},
		{"99999", 0, notPort},
		{"123456", 0, notPort},
		{"99999999999999999999999", 0, notPort},
		{"+1", 0, notPort},
		{"-1", 0, notPort},
		{" 80", 0, notPort},
		{"80 ", 0, notPort},
		{"1e3", 0, notPort},
		{"0x50", 0, notPort},
		{"８０", 0, notPort}, // full-width digits
		{"http", 0, notPort},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := capability.ParsePort(tc.in)
			if got != tc.want || (err != nil) != (tc.wantErr != "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParsePort(%q) = %d, %v; want %d, error %q", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestTargetString(t *testing.T) {
	tests := []struct {
		target capability.Target
		want   string
		isIP   bool
	}{
		{capability.MustTarget("example.com", 443), "example.com:443", false},
		{capability.MustTarget("::1", 8080), "[::1]:8080", true},
		{capability.MustTarget("127.0.0.1", 3000), "127.0.0.1:3000", true},
	}
	for _, tc := range tests {
		if got := tc.target.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
		if got := tc.target.IsIP(); got != tc.isIP {
			t.Errorf("%v.IsIP() = %v; want %v", tc.target, got, tc.isIP)
		}
		// String parses back to the same target.
		back, err := capability.ParseTarget(tc.want, 0)
		if err != nil || back != tc.target {
			t.Errorf("ParseTarget(%q) = %v, %v; want %v", tc.want, back, err, tc.target)
		}
	}
}

func TestRequirement(t *testing.T) {
	r := capability.Network(capability.MustTarget("example.com", 443))
	if got, want := r.String(), "network example.com:443"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"capability":"network","target":{"host":"example.com","port":443}}`; got != want {
		t.Errorf("JSON = %s; want %s", got, want)
	}
}
