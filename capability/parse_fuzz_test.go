package capability_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/capability"
)

// FuzzParseHostPattern: a rule host from a file a cloned repository may
// ship. An accepted pattern is a fixed point (its String parses back to
// itself), its host is what NormalizeHost keeps, a wildcard names a
// domain of at least two labels and matches a subdomain but never the
// domain itself; a refusal wraps ErrInvalidHost and does not quote more
// than a short prefix of the input.
func FuzzParseHostPattern(f *testing.F) {
	for _, s := range []string{
		"example.com", "*.example.com", "EXAMPLE.com.", "*.Bücher.example",
		"*", "*.com", "*.co.uk", "*.github.io", "a*.example.com", "*.*.example.com",
		"*.1.2.3.4", "::1", "[::1]", "*.[::1]", "127.0.0.1", "", "*.",
		"*.example.com.", "*." + strings.Repeat("a", 300) + ".com",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := capability.ParseHostPattern(s)
		if err != nil {
			if !errors.Is(err, capability.ErrInvalidHost) {
				t.Fatalf("ParseHostPattern(%q): error %v does not wrap ErrInvalidHost", s, err)
			}
			if len(s) > 200 && strings.Contains(err.Error(), s) {
				t.Fatalf("ParseHostPattern: error quotes the whole %d-byte input", len(s))
			}
			return
		}
		if h, err := capability.NormalizeHost(p.Host); err != nil || h != p.Host {
			t.Fatalf("ParseHostPattern(%q).Host = %q is not normal (%q, %v)", s, p.Host, h, err)
		}
		again, err := capability.ParseHostPattern(p.String())
		if err != nil || again != p {
			t.Fatalf("ParseHostPattern(%q) = %+v, but its String %q parses as %+v, %v", s, p, p.String(), again, err)
		}
		if p.Wildcard {
			if !strings.Contains(p.Host, ".") || strings.Contains(p.Host, ":") {
				t.Fatalf("ParseHostPattern(%q) = %+v: a wildcard over a single label or an IP", s, p)
			}
			if p.Match(p.Host) || !p.Match("a."+p.Host) {
				t.Fatalf("ParseHostPattern(%q) = %+v: matches its own domain or not a subdomain", s, p)
			}
		} else if !p.Match(p.Host) {
			t.Fatalf("ParseHostPattern(%q) = %+v does not match its own host", s, p)
		}
	})
}

// FuzzParseTarget: "host[:port]" from a proxy request, a rule or the
// command line. An accepted target has a normal host and a port 1–65535
// (with no default port, a port must be written),
// and its String parses back to the same target; ParsePort accepts only
// the canonical decimal spelling.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{
		"example.com", "example.com:443", "[::1]:8080", "[::1]", "::1", "[::1]:",
		"example.com:", "example.com:0", "example.com:65536", "example.com:080",
		"example.com:+80", "[fe80::1%25eth0]:80", "a:b:c", "[::1]x", "[", "127.1:80",
		"Bücher.example:8443", ":80",
	} {
		f.Add(s, uint16(443))
	}
	f.Add("example.com", uint16(0))
	f.Fuzz(func(t *testing.T, s string, def uint16) {
		tg, err := capability.ParseTarget(s, def)
		if err != nil {
			if len(s) > 200 && strings.Contains(err.Error(), s) {
				t.Fatalf("ParseTarget: error quotes the whole %d-byte input", len(s))
			}
			return
		}
		if h, err := capability.NormalizeHost(tg.Host()); err != nil || h != tg.Host() {
			t.Fatalf("ParseTarget(%q) host %q is not normal (%q, %v)", s, tg.Host(), h, err)
		}
		if tg.Port() == 0 {
			t.Fatalf("ParseTarget(%q, %d) = %v: port 0", s, def, tg)
		}
		again, err := capability.ParseTarget(tg.String(), 1)
		if err != nil || again != tg {
			t.Fatalf("ParseTarget(%q) = %v, but its String parses as %v, %v", s, tg, again, err)
		}
	})
}

// FuzzParsePort: only the canonical decimal 1–65535 passes, and it
// prints back as written.
func FuzzParsePort(f *testing.F) {
	for _, s := range []string{"80", "443", "65535", "65536", "0", "080", "00", "", "+80", "-1", " 80", "99999999999999999999", "８０"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := capability.ParsePort(s)
		if err != nil {
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("ParsePort(%q): error %q is not UTF-8", s, err)
			}
			return
		}
		if p == 0 || itoa(p) != s {
			t.Fatalf("ParsePort(%q) = %d: not the canonical spelling", s, p)
		}
	})
}

// FuzzParseOrigin: the origin of a URL a page or an agent wrote. An
// accepted origin has the scheme http or https, a normal host and a
// port; its Host is what a URL would write, and ParseOrigin of that
// authority's parts gives the origin back.
func FuzzParseOrigin(f *testing.F) {
	f.Add("https", "example.com", "")
	f.Add("http", "Bücher.example", "8080")
	f.Add("https", "::1", "443")
	f.Add("ftp", "example.com", "")
	f.Add("https", "example.com", "080")
	f.Add("HTTPS", "example.com", "")
	f.Add("https", "fe80::1%eth0", "")
	f.Fuzz(func(t *testing.T, scheme, host, port string) {
		o, err := capability.ParseOrigin(scheme, host, port)
		if err != nil {
			if !errors.Is(err, capability.ErrInvalidScheme) && !errors.Is(err, capability.ErrInvalidHost) && !errors.Is(err, capability.ErrInvalidPort) {
				t.Fatalf("ParseOrigin(%q, %q, %q): error %v wraps no Err", scheme, host, port, err)
			}
			return
		}
		if o.Scheme != "http" && o.Scheme != "https" {
			t.Fatalf("ParseOrigin(%q, …) scheme %q", scheme, o.Scheme)
		}
		if o.Target.Port() == 0 || o.PortWritten != (port != "") {
			t.Fatalf("ParseOrigin(%q, %q, %q) = %+v", scheme, host, port, o)
		}
		wantPort := ""
		if o.PortWritten {
			wantPort = itoa(o.Target.Port())
		}
		again, err := capability.ParseOrigin(o.Scheme, o.Target.Host(), wantPort)
		if err != nil || again != o {
			t.Fatalf("ParseOrigin(%q, %q, %q) = %+v, but again %+v, %v", scheme, host, port, o, again, err)
		}
	})
}

// FuzzTargetUnmarshalJSON: a target read from a file (an audit line) is
// the zero Target or one NewTarget would build unchanged, and it writes
// back the same bytes it reads from; an error never quotes the host.
func FuzzTargetUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"host":"example.com","port":443}`, `{"host":"EXAMPLE.com","port":443}`,
		`{"host":"::1","port":8080}`, `{"host":"[::1]","port":8080}`, `{}`, `null`,
		`{"host":"example.com"}`, `{"port":443}`, `{"host":"example.com","port":0}`,
		`{"host":"example.com","port":65536}`, `{"HOST":"example.com","Port":1}`,
		`{"host":"a","host":"b","port":1}`, `[]`, `"x"`, `{"host":"secret-host.invalid\u0000","port":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tg capability.Target
		if err := json.Unmarshal(data, &tg); err != nil {
			var v struct{ Host string }
			if json.Unmarshal(data, &v) == nil && len(v.Host) > 3 && strings.Contains(err.Error(), v.Host) {
				t.Fatalf("Unmarshal(%q): error %q quotes the host", data, err)
			}
			return
		}
		if tg.IsZero() {
			return
		}
		built, err := capability.NewTarget(tg.Host(), tg.Port())
		if err != nil || built != tg {
			t.Fatalf("Unmarshal(%q) = %v, which NewTarget builds as %v, %v", data, tg, built, err)
		}
		b, err := json.Marshal(tg)
		if err != nil {
			t.Fatal(err)
		}
		var again capability.Target
		if err := json.Unmarshal(b, &again); err != nil || again != tg {
			t.Fatalf("Unmarshal(%q) = %v, written %s, read back as %v, %v", data, tg, b, again, err)
		}
	})
}

func itoa(p uint16) string {
	var b [5]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + p%10)
		p /= 10
		if p == 0 {
			return string(b[i:])
		}
	}
}
