package localfetch

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/refusal"
)

// FuzzReadAllowedPorts writes arbitrary bytes as the allowlist. The reader
// must never panic, must fail with one of its two codes naming the file,
// and whenever it admits, the file must really be a valid object with
// exactly schema_version 1 and a list of integer ports 1–65535 — the ports
// it returns.
func FuzzReadAllowedPorts(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": 1, "ports": [3000, 8080]}`, // the documented form
		`{"schema_version": 1, "ports": []}`,           // admits nothing
		`{"schema_version": 1, "ports": [true]}`,       // bool is not a port
		`{"schema_version": 1, "ports": [3000.0]}`,     // float literal
		`{"schema_version": 1, "ports": ["3000"]}`,     // string
		`{"schema_version": 1.0, "ports": [3000]}`,     // non-integer version
		`{"schema_version": 1, "ports": [65536, 0, -1]}`,
		`{"schema_version": 1, "ports": [1], "ports": [2]}`,       // duplicate key
		`{"Schema_Version": 1, "PORTS": [3000]}`,                  // case-folded keys
		`{"schema_version": 1, "ports": [3000]} {}`,               // trailing data
		"{\"schema_version\": 1, \"ports\": [3000], \"\xff\": 0}", // invalid UTF-8
		`{"schema_version": 1, "ports": [[[[[[[[[[[[3000]]]]]]]]]]]]}`,
		`{"schema_version": 1, "ports": [1e3]}`,
		``,
	} {
		f.Add([]byte(s))
	}
	ws := newWorkspace(f)
	if err := ws.EnsureDir(); err != nil {
		f.Fatal(err)
	}
	path := AllowlistPath(ws)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ports, err := ReadAllowedPorts(ws)
		if err != nil {
			if c := refusal.CodeOf(err); c != refusal.LocalAllowlistInvalid {
				t.Fatalf("code = %q; want %q", c, refusal.LocalAllowlistInvalid)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			if ports != nil {
				t.Fatalf("ports %v returned with an error", ports)
			}
			return
		}
		want, ok := independentParse(data)
		if !ok {
			t.Fatalf("ReadAllowedPorts admitted %q, which is not a valid allowlist", data)
		}
		if diff := cmp.Diff(want, ports); diff != "" {
			t.Fatalf("ports of %q mismatch (-want +got):\n%s", data, diff)
		}
	})
}

// independentParse checks data with encoding/json's generic decoder: an
// object with exactly the keys schema_version (the literal 1) and ports (a
// list of integer literals 1–65535). It returns the sorted, deduplicated
// ports. It cannot see duplicate keys; the table tests cover those.
func independentParse(data []byte) (Ports, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || dec.More() || m == nil || len(m) != 2 {
		return nil, false
	}
	if v, ok := m["schema_version"].(json.Number); !ok || v != "1" {
		return nil, false
	}
	list, ok := m["ports"].([]any)
	if !ok {
		return nil, false
	}
	var ports Ports
	for _, e := range list {
		n, ok := e.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE-+") {
			return nil, false
		}
		p, err := strconv.ParseUint(string(n), 10, 16)
		if err != nil || p == 0 {
			return nil, false
		}
		ports = append(ports, uint16(p))
	}
	slices.Sort(ports)
	return append(Ports{}, slices.Compact(ports)...), true
}

// FuzzNormalizeLocalHost: never panics; a result is a fixed point, lowercase
// ASCII without '%', '/', '@' or brackets; and an IPv4-mapped literal never
// becomes a named host.
func FuzzNormalizeLocalHost(f *testing.F) {
	for _, s := range []string{
		"localhost", "LOCALHOST.", "[::1]", "[0:0:0:0:0:0:0:1]", // the named hosts
		"１２７.０.０.１", "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", "127。0。0。1", // mapped forms
		"①②⑦.⓪.⓪.②", "::ffff:127.0.0.1", "127.0.0.2", // near misses
		"127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0", // inet_aton forms
		"[fe80::1%eth0]", "[::1%lo]", "", ".", "a..b", "user@localhost",
		"0..", "localhost..", "127.1..", // two trailing dots: found by this fuzzer
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		got := NormalizeLocalHost(host)
		if got == "" {
			return
		}
		if again := NormalizeLocalHost(got); again != got {
			t.Fatalf("NormalizeLocalHost(%q) = %q, but NormalizeLocalHost(%q) = %q", host, got, got, again)
		}
		for i := 0; i < len(got); i++ {
			c := got[i]
			if c >= 0x80 || c <= 0x20 || (c >= 'A' && c <= 'Z') || strings.IndexByte("%/@[]", c) >= 0 {
				t.Fatalf("NormalizeLocalHost(%q) = %q holds byte %q", host, got, c)
			}
		}
		if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil && a.Is4In6() {
			// Deliberate: an IPv4-mapped literal stays mapped, so
			// ::ffff:127.0.0.1 is never taken for 127.0.0.1.
			if got != a.String() || isLocalHost(got) {
				t.Fatalf("NormalizeLocalHost(%q) = %q; want the mapped form %q", host, got, a)
			}
		}
	})
}

// FuzzAdmitLocalURL: never panics, and never admits a URL that is not
// http(s), whose host does not normalise to one of the three named hosts,
// that carries credentials, or whose explicit port is not in the allowlist
// ([3000, 8080]). A refusal never quotes the URL's query or fragment.
func FuzzAdmitLocalURL(f *testing.F) {
	for _, s := range []string{
		"http://localhost:3000/",                // admitted
		"https://[::1]:8080/x?y=z",              // admitted
		"http://１２７.０.０.１:3000/",                // look-alike of 127.0.0.1: refused
		"http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:8080/",                // look-alike of localhost: refused
		"http://①②⑦.⓪.⓪.②:3000/",                // 127.0.0.2: not local
		"http://[::ffff:127.0.0.1]:3000/",       // mapped v4: not local
		"http://127.1:3000/",                    // inet_aton form
		"http://user:pw@localhost:3000/",        // credentials
		"http://localhost:/",                    // empty port
		"http://localhost/",                     // no port
		"http://localhost:03000/",               // leading zero
		"http://localhost:5000/",                // not allowed
		"http://[::1%25lo]:3000/",               // zone
		"ftp://localhost:3000/",                 // scheme
		"http://localhost:3000\\@evil.example/", // backslash games
		"http://localhost%2e:3000/",
	} {
		f.Add(s)
	}
	ws := newWorkspace(f)
	writeAllowlistFile(f, ws, `{"schema_version": 1, "ports": [3000, 8080]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		port, err := AdmitLocalURL(raw, ws, Profile)
		u, perr := url.Parse(raw)
		if err != nil {
			if port != 0 {
				t.Fatalf("port %d returned with error %v", port, err)
			}
			r, ok := refusal.As(err)
			if !ok {
				t.Fatalf("error %v is not a *refusal.Error", err)
			}
			if perr == nil {
				for _, secret := range []string{"?" + u.RawQuery, "#" + u.Fragment} {
					if len(secret) > 4 && (strings.Contains(r.Message, secret) || strings.Contains(r.Hint, secret)) {
						t.Fatalf("refusal of %q quotes %q: %q", raw, secret, r.Message)
					}
				}
			}
			return
		}
		if perr != nil {
			t.Fatalf("admitted %q, which url.Parse refuses: %v", raw, perr)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("admitted %q with scheme %q", raw, u.Scheme)
		}
		if h := NormalizeLocalHost(u.Hostname()); !isLocalHost(h) {
			t.Fatalf("admitted %q whose host normalises to %q", raw, h)
		}
		if u.User != nil {
			t.Fatalf("admitted %q with credentials", raw)
		}
		if port != 3000 && port != 8080 {
			t.Fatalf("admitted %q on port %d, not in the allowlist", raw, port)
		}
		if u.Port() != strconv.Itoa(int(port)) {
			t.Fatalf("admitted %q as port %d but its port is %q", raw, port, u.Port())
		}
		if !IsLocalTarget(raw) {
			t.Fatalf("admitted %q, which IsLocalTarget rejects", raw)
		}
	})
}
