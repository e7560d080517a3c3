package rules_test

import (
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
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

// TestParseArg: a URL is read as the host and port it reaches (http:// 80,
// https:// 443, an explicit port wins), with a note when it had a path or
// query, or when an http rule serves the proxy only; other schemes,
// credentials and '*' alone are refused with a hint.
func TestParseArg(t *testing.T) {
	tests := []struct {
		in       string
		wantHost string
		wantPort uint16
		wantNote string // a substring; "" for no note
		wantCode refusal.Code
		wantHint string // a substring of the refusal's hint
	}{
		{"example.com:8443", "example.com", 8443, "", "", ""},
		{"https://Example.COM", "example.com", 443, "", "", ""},
		{"https://example.com:8443/docs?q=1", "example.com", 8443, "the URL's path and query are not part of it", "", ""},
		{"http://example.com/", "example.com", 80, "this rule serves shell tools through the proxy", "", ""},
		{"http://127.0.0.1:3000/", "127.0.0.1", 3000, "", "", ""},
		{"http://[2606:4700::1111]/", "2606:4700::1111", 80, "for get, allow 2606:4700::1111 (port 443)", "", ""},
		{"ftp://example.com/", "", 0, "", refusal.InvalidArguments, "write HOST[:PORT]"},
		{"http://user:pw@example.com/", "", 0, "", refusal.InvalidArguments, "write HOST[:PORT]"},
		{"https:///nohost", "", 0, "", refusal.InvalidArguments, "write HOST[:PORT]"},
		{"*", "", 0, "", refusal.InvalidHost, "--public-https"},
		{"*:443", "", 0, "", refusal.InvalidHost, "--public-https"},
		{"bad host!", "", 0, "", refusal.InvalidHost, "write HOST[:PORT]"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			a, err := rules.ParseArg(tc.in)
			if tc.wantCode != "" {
				r, ok := refusal.As(err)
				if !ok || r.Code != tc.wantCode || !strings.Contains(r.Hint, tc.wantHint) {
					t.Fatalf("ParseArg(%q) = %+v, %v; want %s with a hint holding %q", tc.in, a, err, tc.wantCode, tc.wantHint)
				}
				if strings.Contains(r.Message, "pw") {
					t.Errorf("message repeats the password: %q", r.Message)
				}
				return
			}
			if err != nil || a.Pattern.String() != tc.wantHost || a.Port != tc.wantPort {
				t.Fatalf("ParseArg(%q) = %q, %d, %v; want %q, %d", tc.in, a.Pattern, a.Port, err, tc.wantHost, tc.wantPort)
			}
			if (tc.wantNote == "") != (a.Note == "") || !strings.Contains(a.Note, tc.wantNote) {
				t.Errorf("ParseArg(%q).Note = %q; want %q", tc.in, a.Note, tc.wantNote)
			}
			if strings.Contains(a.Note, "docs") || strings.Contains(a.Note, "q=1") {
				t.Errorf("note repeats the path or query: %q", a.Note)
			}
		})
	}
}

// TestAllowable: an allow rule for an address the guard always refuses is
// refused naming its range; names, public addresses and local mode's
// loopback hosts are allowable.
func TestAllowable(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"10.0.0.1", "10.0.0.1 is in 10.0.0.0/8 (private use)"},
		{"169.254.169.254", "169.254.169.254 is in 169.254.0.0/16 (link local)"},
		{"fd00:ec2::254", "fd00:ec2::254 is in fc00::/7"},
		{"127.0.0.2", "127.0.0.2 is in 127.0.0.0/8 (loopback)"},
		{"127.0.0.1", ""},
		{"::1", ""},
		{"localhost", ""},
		{"93.184.216.34", ""},
		{"example.com", ""},
	} {
		t.Run(tc.host, func(t *testing.T) {
			p, err := capability.ParseHostPattern(tc.host)
			if err != nil {
				t.Fatal(err)
			}
			err = rules.Allowable(p)
			if tc.want == "" {
				if err != nil {
					t.Errorf("Allowable(%s) = %v; want nil", tc.host, err)
				}
				return
			}
			r, ok := refusal.As(err)
			if !ok || r.Code != refusal.InvalidArguments || !strings.Contains(r.Message, tc.want) || !strings.Contains(r.Hint, "ocfetch local allow PORT") {
				t.Errorf("Allowable(%s) = %v; want invalid_arguments naming %q, hinting at local mode", tc.host, err, tc.want)
			}
		})
	}
}

// TestArgString: an Arg is written as rules write their target.
func TestArgString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com:443"},
		{"*.example.com:8443", "*.example.com:8443"},
		{"[::1]:8080", "[::1]:8080"},
		{"http://Example.com/", "example.com:80"},
	} {
		a, err := rules.ParseArg(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.String(); got != tc.want {
			t.Errorf("ParseArg(%q).String() = %q; want %q", tc.in, got, tc.want)
		}
	}
	open := rules.Arg{Pattern: capability.HostPattern{Host: rules.PublicHTTPSHost}, Port: rules.PublicHTTPSPort}
	if got := open.String(); got != "*:443" {
		t.Errorf("the open-web target = %q; want \"*:443\"", got)
	}
}

// FuzzParseArg: whatever a person types, ParseArg either refuses with a
// named refusal carrying a hint, or returns a target a rule can hold (it
// saves as NewRule makes it and reads back the same).
func FuzzParseArg(f *testing.F) {
	for _, seed := range []string{
		"example.com",                       // the default port
		"*.example.com:8443",                // a wildcard with a port
		"[::1]:8080",                        // a bracketed IPv6 literal
		"https://example.com:8443/docs?q=1", // a URL with a path and query
		"http://[2606:4700::1111]/",         // an http URL to a public IPv6 host
		"http://user:pw@example.com/",       // credentials
		"ftp://example.com/",                // another scheme
		"*",                                 // the open-web rule's host alone
		"example.com:0443",                  // a leading zero
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := rules.ParseArg(s)
		if err != nil {
			r, ok := refusal.As(err)
			if !ok || (r.Code != refusal.InvalidArguments && r.Code != refusal.InvalidHost) || r.Hint == "" {
				t.Fatalf("ParseArg(%q) = %v; want invalid_arguments or invalid_host with a hint", s, err)
			}
			return
		}
		if a.Port == 0 {
			t.Fatalf("ParseArg(%q) = port 0", s)
		}
		set, err := rules.NewSet(rules.NewRule(rules.Allow, a.Pattern, a.Port))
		if err != nil {
			t.Fatalf("ParseArg(%q) = %s, which is no rule: %v", s, a, err)
		}
		if got := set.Rules()[0].Target; got.Host != a.Pattern.String() || got.Port != a.Port {
			t.Fatalf("ParseArg(%q) = %s; saved as %s:%d", s, a, got.Host, got.Port)
		}
	})
}

// secretMark marks the credentials, path, query and fragment put into a
// rule target by the tests below: no refusal may repeat it.
const secretMark = "Zq7s"

// noSecret fails t if ParseArg's refusal of in (message, hint or Error())
// repeats secretMark.
func noSecret(t *testing.T, in string) {
	t.Helper()
	_, err := rules.ParseArg(in)
	if err == nil {
		return
	}
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("ParseArg(%q) = %v; want a refusal", in, err)
	}
	for _, text := range []string{r.Message, r.Hint, err.Error()} {
		if strings.Contains(text, secretMark) {
			t.Fatalf("ParseArg(%q): refusal %q repeats the credentials, path or query", in, text)
		}
	}
}

// TestParseArgQuotesNoSecret: a refused target's message names the part
// that is wrong (the credentials, a missing host, a bad scheme, host or
// path) and never repeats the credentials, path, query or fragment typed.
func TestParseArgQuotesNoSecret(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://u:" + secretMark + "@/", "a URL with credentials (user:pass@) is not a rule"},
		{"http://" + secretMark + "@example.com/", "a URL with credentials (user:pass@) is not a rule"},
		{"ftp://u:" + secretMark + "@example.com/" + secretMark + "?" + secretMark, `scheme "ftp" cannot be fetched`},
		{"https:///" + secretMark + "?" + secretMark, "it names no host"},
		{"https://exa mple.com/" + secretMark + "?" + secretMark, `its host and port "exa mple.com" are not valid`},
		{"https://example.com/%zz" + secretMark, "its path, query or fragment is not valid"},
		{"https://example.com/\x7f" + secretMark, "its path, query or fragment is not valid"},
		{"1x://example.com/" + secretMark, "the text before :// is not a scheme"},
		{"u:" + secretMark + "@example.com", "credentials (user@ or user:pass@) are not part of a host"},
		{"example.com/" + secretMark + "?" + secretMark, `rule target "example.com": a path, query or fragment`},
		{"example.com:80?" + secretMark, `rule target "example.com:80": a path, query or fragment`},
		{"bad host!/" + secretMark, `rule target "bad host!": a path, query or fragment`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			noSecret(t, tc.in)
			_, err := rules.ParseArg(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseArg(%q) = %v; want a refusal saying %q", tc.in, err, tc.want)
			}
		})
	}
}

// FuzzParseArgQuotesNoSecret: whatever host text a person types, when it
// is given credentials, a path, a query or a fragment (marked with
// secretMark), a refusal of ParseArg repeats none of them.
func FuzzParseArgQuotesNoSecret(f *testing.F) {
	for _, seed := range []string{
		"example.com",         // a good host
		"example.com:8443",    // with a port
		"[::1]:8080",          // a bracketed IPv6 literal
		"",                    // no host
		"bad host!",           // a bad host
		"exa%zzmple.com",      // a bad escape in the host
		"https://example.com", // a URL in the host's place
		"a@b",                 // an '@' of its own
		"*",                   // the open-web rule's host alone
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if strings.Contains(strings.ToLower(host), strings.ToLower(secretMark)) {
			t.Skip("the host itself holds the mark")
		}
		for _, in := range []string{
			host + "/" + secretMark + "?" + secretMark + "#" + secretMark,
			host + "?" + secretMark,
			host + "#" + secretMark,
			"u:" + secretMark + "@" + host,
			"http://u:" + secretMark + "@" + host + "/" + secretMark,
			"https://" + secretMark + "@" + host,
			"https://" + host + "/" + secretMark + "?" + secretMark,
			"https://" + host + "?" + secretMark,
			"ftp://" + host + "/" + secretMark,
		} {
			noSecret(t, in)
		}
	})
}
