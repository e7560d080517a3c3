package content

import (
	"errors"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"", Markdown, false},
		{"markdown", Markdown, false},
		{"Markdown", Markdown, false},
		{" text ", Text, false},
		{"RAW", Raw, false},
		{"html", "", true},
		{"md", "", true},
		{"pdf", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFormat(tc.in)
			if tc.wantErr {
				if !errors.Is(err, ErrUnsupportedFormat) {
					t.Fatalf("ParseFormat(%q) error: got %v; want ErrUnsupportedFormat", tc.in, err)
				}
				for _, v := range []string{"markdown", "text", "raw"} {
					if !strings.Contains(err.Error(), v) {
						t.Errorf("error %q does not name the valid value %q", err, v)
					}
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseFormat(%q): got %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseFormatErrorIsShort(t *testing.T) {
	_, err := ParseFormat(strings.Repeat("x", 10_000))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("got %d-byte error; want a short one echoing a truncated value", len(err.Error()))
	}
}
