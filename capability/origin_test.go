package capability_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/capability"
)

func TestOriginOf(t *testing.T) {
	tests := []struct {
		raw     string
		want    capability.Origin
		str     string
		wantErr error
	}{
		{"https://Example.COM./x?q", capability.Origin{Scheme: "https", Target: capability.MustTarget("example.com", 443)}, "https://example.com", nil},
		{"https://example.com:443/", capability.Origin{Scheme: "https", Target: capability.MustTarget("example.com", 443), PortWritten: true}, "https://example.com:443", nil},
		{"http://example.com/", capability.Origin{Scheme: "http", Target: capability.MustTarget("example.com", 80)}, "http://example.com", nil},
		{"http://[0:0::1]:3000/", capability.Origin{Scheme: "http", Target: capability.MustTarget("::1", 3000), PortWritten: true}, "http://[::1]:3000", nil},
		{"https://[2606:4700::1111]/", capability.Origin{Scheme: "https", Target: capability.MustTarget("2606:4700::1111", 443)}, "https://[2606:4700::1111]", nil},
		{"ftp://example.com/", capability.Origin{}, "", capability.ErrInvalidScheme},
		{"http://localhost:/", capability.Origin{Scheme: "http", Target: capability.MustTarget("localhost", 80)}, "http://localhost", nil},
		{"http://localhost:0/", capability.Origin{}, "", capability.ErrInvalidPort},
		{"http://localhost:03000/", capability.Origin{}, "", capability.ErrInvalidPort},
		{"http://127.1:3000/", capability.Origin{}, "", capability.ErrInvalidHost},
		{"http://%80.example/", capability.Origin{}, "", capability.ErrInvalidHost},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			u, err := url.Parse(tc.raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := capability.OriginOf(u)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("OriginOf(%q) = %v, %v; want error %v", tc.raw, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("OriginOf(%q): %v", tc.raw, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("OriginOf(%q) (-want +got):\n%s", tc.raw, diff)
			}
			if got.String() != tc.str {
				t.Errorf("String() = %q; want %q", got.String(), tc.str)
			}
		})
	}
}

func TestIsLocalHost(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "::1": true,
		"127.0.0.2": false, "::ffff:127.0.0.1": false, "localhost.example": false, "LOCALHOST": false, "[::1]": false,
	} {
		if got := capability.IsLocalHost(h); got != want {
			t.Errorf("IsLocalHost(%q) = %v; want %v", h, got, want)
		}
	}
}
