package capability_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
)

// TestNormalizeHost is the bypass table: every spelling that a resolver,
// browser or net/http might read as a different host than the one a rule
// names is either mapped to the one canonical form or refused.
func TestNormalizeHost(t *testing.T) {
	label63 := strings.Repeat("a", 63)
	name253 := strings.Join([]string{label63, label63, label63, strings.Repeat("b", 61)}, ".") // 253 bytes
	tests := []struct {
		name, in, want string // want "" means refused
	}{
		{"plain", "example.com", "example.com"},
		{"upper case and trailing dot", "EXAMPLE.COM.", "example.com"},
		{"underscore passes as on the wire", "_service.example", "_service.example"},
		{"punycode kept", "xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"IDNA", "Bücher.example.", "xn--bcher-kva.example"},
		{"IDNA upper case", "BÜCHER.EXAMPLE", "xn--bcher-kva.example"},
		{"full-width letters and stop", "ＥＸＡＭＰＬＥ．ＣＯＭ", "example.com"},
		{"IPv4", "127.0.0.1", "127.0.0.1"},
		{"IPv4 trailing dot", "10.0.0.1.", "10.0.0.1"},
		{"IPv6 bracketed", "[::1]", "::1"},
		{"IPv6 bare", "::1", "::1"},
		{"IPv6 uncompressed", "[0:0:0:0:0:0:0:1]", "::1"},
		{"IPv6 upper case", "[2001:DB8::1]", "2001:db8::1"},
		{"IPv4-mapped stays mapped", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
		{"IPv4-mapped in hex stays mapped", "[::ffff:7f00:1]", "::ffff:127.0.0.1"},
		{"253 bytes", name253, name253},

		{"empty", "", ""},
		{"shell metacharacters", "x;touch$IFS\"pwned\";$(id>p)<a>b.example", ""},
		{"ampersand", "a&b.example", ""},
		{"equals", "a=b.example", ""},
		{"quote", "a'b.example", ""},
		{"bang", "a!b.example", ""},
		{"comma", "a,b.example", ""},
		{"star", "*.example", ""},
		{"invalid UTF-8 from %80", "\x80.example", ""},
		{"invalid UTF-8 mid-name", "ex\xffample.com", ""},
		{"full-width digits", "１２７.０.０.１", ""},
		{"zone bracketed", "[fe80::1%eth0]", ""},
		{"zone escaped", "[fe80::1%25eth0]", ""},
		{"zone on ::1", "[::1%lo]", ""},
		{"zone bare", "fe80::1%eth0", ""},
		{"short IPv4", "127.1", ""},
		{"hex IPv4", "0x7f000001", ""},
		{"decimal IPv4", "2130706433", ""},
		{"octal IPv4", "0177.0.0.1", ""},
		{"zero", "0", ""},
		{"leading zero octet", "127.0.0.01", ""},
		{"five octets", "1.2.3.4.5", ""},
		{"hex last label", "example.0x1f", ""},
		{"numeric last label", "example.123", ""},
		{"bare 0x", "0x", ""},
		{"empty label", "a..b", ""},
		{"leading dot", ".example.com", ""},
		{"only a dot", ".", ""},
		{"two dots", "..", ""},
		{"two trailing dots", "example.com..", ""},
		{"space", "exa mple.com", ""},
		{"tab", "example.com\t", ""},
		{"NUL", "example.com\x00", ""},
		{"at sign", "user@example.com", ""},
		{"slash", "example.com/x", ""},
		{"backslash", `example.com\x`, ""},
		{"percent", "exa%6dple.com", ""},
		{"question mark", "example.com?x", ""},
		{"hash", "example.com#x", ""},
		{"port", "example.com:443", ""},
		{"full-width colon", "localhost：80", ""},
		{"unbalanced open", "[::1", ""},
		{"unbalanced close", "::1]", ""},
		{"bracketed IPv4", "[127.0.0.1]", ""},
		{"bracketed name", "[example.com]", ""},
		{"254 bytes", name253 + "c", ""},
		{"over-long", strings.Repeat("a.", 200) + "com", ""},
		{"line separator", "exa\u2028mple.com", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := capability.NormalizeHost(tc.in)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("NormalizeHost(%q) = %q; want an error", tc.in, got)
				}
				if !errors.Is(err, capability.ErrInvalidHost) {
					t.Errorf("NormalizeHost(%q) error %v does not wrap ErrInvalidHost", tc.in, err)
				}
				if got != "" {
					t.Errorf("NormalizeHost(%q) = %q with an error; want \"\"", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NormalizeHost(%q) = %q, %v; want %q, nil", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestNormalizeHostErrorQuotesLittle: an error quotes at most a short,
// sanitized prefix of the host.
func TestNormalizeHostErrorQuotesLittle(t *testing.T) {
	for _, in := range []string{
		"0x7f000001." + strings.Repeat("9", 500),
		"[" + strings.Repeat("f", 500) + "]",
		"é" + strings.Repeat("\u2028", 100),
	} {
		_, err := capability.NormalizeHost(in)
		if err == nil {
			t.Fatalf("NormalizeHost(%.20q…) succeeded; want an error", in)
		}
		if msg := err.Error(); len(msg) > 200 || strings.ContainsRune(msg, '\u2028') {
			t.Errorf("error for %.20q… is %d bytes or unsanitized: %.80q", in, len(msg), msg)
		}
	}
}

// FuzzNormalizeHost: never panics; a result is a fixed point (normalising
// twice changes nothing), lowercase ASCII, no longer than MaxHostLength and
// free of '%', '/', '@', brackets, spaces and control bytes.
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{
		"example.com", "EXAMPLE.COM.", "Bücher.example.", // names
		"１２７.０.０.１", "127。0。0。1", "①②⑦.⓪.⓪.①", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", // mapped forms
		"[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[fe80::1%25eth0]", // IPv6
		"127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0", // inet_aton forms
		"a..b", ".", "", "user@host", "host/x", // malformed
		"example.com..",                                                    // two trailing dots
		"local\u00adhost", "localho\u017ft", "a&b.example", "\x80.example", // look-alikes, shell and audit breakers, not UTF-8
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		got, err := capability.NormalizeHost(host)
		if err != nil {
			if !errors.Is(err, capability.ErrInvalidHost) {
				t.Fatalf("error %v does not wrap ErrInvalidHost", err)
			}
			return
		}
		again, err := capability.NormalizeHost(got)
		if err != nil || again != got {
			t.Fatalf("NormalizeHost(%q) = %q, but NormalizeHost(%q) = %q, %v", host, got, got, again, err)
		}
		if got == "" || len(got) > capability.MaxHostLength {
			t.Fatalf("NormalizeHost(%q) = %q: empty or over-long", host, got)
		}
		if _, err := netip.ParseAddr(got); err == nil {
			if !isASCII(host) {
				t.Fatalf("NormalizeHost(%q) = %q: a look-alike of an IP literal passed", host, got)
			}
			return
		}
		// Item 4 of issue 11: a name holds letters, digits, '-', '_' and
		// '.' only, so it is a valid audit summary and safe in a hint.
		for i := 0; i < len(got); i++ {
			c := got[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				t.Fatalf("NormalizeHost(%q) = %q holds byte %q", host, got, c)
			}
		}
		if !isASCII(host) && capability.IsLocalHost(got) {
			t.Fatalf("NormalizeHost(%q) = %q: a look-alike of a local host passed", host, got)
		}
	})
}

func ExampleNormalizeHost() {
	for _, h := range []string{"Bücher.example.", "[0:0:0:0:0:0:0:1]", "１２７.０.０.１", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", "[::ffff:127.0.0.1]", "127.1"} {
		got, err := capability.NormalizeHost(h)
		if err != nil {
			fmt.Printf("%s: refused\n", h)
			continue
		}
		fmt.Printf("%s: %s\n", h, got)
	}
	// Output:
	// Bücher.example.: xn--bcher-kva.example
	// [0:0:0:0:0:0:0:1]: ::1
	// １２７.０.０.１: refused
	// ⓛⓞⓒⓐⓛⓗⓞⓢⓣ: refused
	// [::ffff:127.0.0.1]: ::ffff:127.0.0.1
	// 127.1: refused
}

// TestNormalizeHostErrorQuotesNoPath: url.Parse leaves a path behind a
// look-alike slash in the host; the refusal must not repeat it.
func TestNormalizeHostErrorQuotesNoPath(t *testing.T) {
	for _, in := range []string{"example.com／secret-token", "exa\u00admple.com／secret-token"} {
		_, err := capability.NormalizeHost(in)
		if err == nil {
			t.Errorf("NormalizeHost(%q) succeeded; want an error", in)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("NormalizeHost(%q) error %q repeats what followed the look-alike slash", in, err)
		}
	}
}

// TestNormalizeHostLookAlikes is issue 11 item 4: a host that IDNA mapping
// turns into an IP literal or one of the three local hosts is refused, one
// row per look-alike family, and the message asks for the host in ASCII.
func TestNormalizeHostLookAlikes(t *testing.T) {
	tests := []struct{ family, in string }{
		{"full-width digits and dots", "１２７.０.０.１"},
		{"full-width digits, ASCII dots", "１２７.0.0.１"},
		{"ideographic full stop", "127。0。0。1"},
		{"circled digits", "①②⑦.⓪.⓪.①"},
		{"circled digits, a non-local address", "①②⑦.⓪.⓪.②"},
		{"full-width IPv4 of a public address", "８.８.８.８"},
		{"circled letters", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ"},
		{"full-width letters", "ｌｏｃａｌｈｏｓｔ"},
		{"soft hyphen (ignored code point)", "local\u00adhost"},
		{"zero-width joiner (invisible)", "local\u200dhost"},
		{"long s (case folds to s)", "localho\u017ft"},
		{"Kelvin sign (case folds to k)", "\u212a.1"},
		{"upper-case look-alike with trailing dot", "ＬＯＣＡＬＨＯＳＴ."},
	}
	for _, tc := range tests {
		t.Run(tc.family, func(t *testing.T) {
			got, err := capability.NormalizeHost(tc.in)
			if err == nil {
				t.Fatalf("NormalizeHost(%q) = %q; want an invalid_host refusal", tc.in, got)
			}
			if !errors.Is(err, capability.ErrInvalidHost) {
				t.Fatalf("error %v does not wrap ErrInvalidHost", err)
			}
			if !strings.Contains(err.Error(), "ASCII") {
				t.Errorf("error %q does not ask for the host in ASCII", err)
			}
		})
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
