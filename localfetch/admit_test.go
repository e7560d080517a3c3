package localfetch

import (
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
)

func TestNormalizeLocalHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"localhost", "localhost"},
		{"LOCALHOST", "localhost"},
		{"LocalHost.", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"::1", "::1"},
		{"[::1]", "::1"},
		{"[0:0:0:0:0:0:0:1]", "::1"},
		{"0:0:0:0:0:0:0:1", "::1"},
		{"[::0:1]", "::1"},
		{"１２７.０.０.１", ""},
		{"127。0。0。1", ""},
		{"ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", ""},
		{"ＬＯＣＡＬＨＯＳＴ", ""},
		{"①②⑦.⓪.⓪.②", ""},
		{"127.0.0.2", "127.0.0.2"},
		// Deliberate: the IPv4-mapped form is itself, not 127.0.0.1.
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1"},
		{"[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
		{"[::]", "::"},
		{"0.0.0.0", "0.0.0.0"},
		{"Bücher.example", "xn--bcher-kva.example"},
		// Not normalisable: "".
		{"", ""},
		{"0", ""},
		{"127.1", ""},
		{"2130706433", ""},
		{"0x7f000001", ""},
		{"0177.0.0.1", ""},
		{"[fe80::1%eth0]", ""},
		{"::1%lo", ""},
		{"local host", ""},
		{"user@localhost", ""},
		{"localhost:3000", ""},
		{"localhost：3000", ""}, // full-width colon maps to ':', which no host may hold
		{"[::1", ""},
		{"..", ""},
		{"localhost..", ""},
		{"127.0.0.1..", ""},
		{"0..", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := NormalizeLocalHost(tc.in); got != tc.want {
				t.Errorf("NormalizeLocalHost(%q) = %q; want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestIsLocalTarget(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"http://localhost:3000/", true},
		{"https://localhost/", true}, // a candidate: admission will refuse it by name
		{"http://user:pass@localhost:3000/", true},
		{"HTTP://LOCALHOST:3000/", true},
		{"http://127.0.0.1:8080/path?q=1", true},
		{"http://[::1]:3000/", true},
		{"http://[0:0:0:0:0:0:0:1]:3000/", true},
		{"http://１２７.０.０.１:3000/", false},
		{"http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:3000/", false},
		{"http://localhost.:3000/", true},
		{"http://①②⑦.⓪.⓪.②:3000/", false},
		{"http://127.0.0.2:3000/", false},
		{"http://[::ffff:127.0.0.1]:3000/", false},
		{"http://[::]:3000/", false},
		{"http://0.0.0.0:3000/", false},
		{"http://127.1:3000/", false},
		{"http://[::1%25lo]:3000/", false},
		{"http://example.com/", false},
		{"https://example.com/", false},
		{"http://localhost.example.com:3000/", false},
		{"http://sub.localhost:3000/", false},
		{"ftp://localhost:3000/", false},
		{"file://localhost/etc/passwd", false},
		{"ws://localhost:3000/", false},
		{"localhost:3000", false},
		{"//localhost:3000/", false},
		{"http:localhost:3000", false},
		{"http://[::1/", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if got := IsLocalTarget(tc.url); got != tc.want {
				t.Errorf("IsLocalTarget(%q) = %v; want %v", tc.url, got, tc.want)
			}
		})
	}
}

// secretTail is appended to every URL of the admission table: no message
// or hint may contain any of it.
const secretTail = "/secret-path/x?token=hunter2&q=private#frag-secret"

// secretParts are the parts of secretTail and of the table's user
// information that must never appear in a refusal.
var secretParts = []string{"secret-path", "hunter2", "private", "frag-secret", "alice", "s3cr3tpw"}

func TestAdmitLocalURL(t *testing.T) {
	ws := newWorkspace(t)
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [3000, 443]}`)

	tests := []struct {
		name     string
		url      string // secretTail is appended
		wantPort uint16
		wantCode refusal.Code
		wantText []string // parts of the message
	}{
		{"localhost", "http://localhost:3000", 3000, "", nil},
		{"https", "https://localhost:443", 443, "", nil},
		{"127.0.0.1", "http://127.0.0.1:3000", 3000, "", nil},
		{"::1", "http://[::1]:3000", 3000, "", nil},
		{"::1 uncompressed", "http://[0:0:0:0:0:0:0:1]:3000", 3000, "", nil},
		{"::1 partly compressed", "http://[::0:1]:3000", 3000, "", nil},
		{"upper case", "HTTP://LOCALHOST:3000", 3000, "", nil},
		{"trailing dot", "http://localhost.:3000", 3000, "", nil},
		{"full-width 127.0.0.1", "http://１２７.０.０.１:3000", 0, refusal.InvalidHost, []string{"ASCII"}},
		{"ideographic full stops", "http://127。0。0。1:3000", 0, refusal.InvalidHost, []string{"ASCII"}},
		{"circled localhost", "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:3000", 0, refusal.InvalidHost, []string{"ASCII"}},
		{"full-width LOCALHOST", "http://ＬＯＣＡＬＨＯＳＴ:3000", 0, refusal.InvalidHost, []string{"ASCII"}},

		{"soft hyphen localhost", "http://local\u00adhost:3000", 0, refusal.InvalidHost, []string{"ASCII"}},
		{"long s localhost", "http://localho\u017ft:3000", 0, refusal.InvalidHost, []string{"ASCII"}},
		{"circled 127.0.0.2", "http://①②⑦.⓪.⓪.②:3000", 0, refusal.InvalidHost, []string{`"127.0.0.2"`, "ASCII"}},
		{"127.0.0.2", "http://127.0.0.2:3000", 0, refusal.InvalidHost, []string{`"127.0.0.2"`, "localhost, 127.0.0.1 and ::1"}},
		{"mapped 127.0.0.1", "http://[::ffff:127.0.0.1]:3000", 0, refusal.InvalidHost, []string{"::ffff:127.0.0.1"}},
		{"unspecified v6", "http://[::]:3000", 0, refusal.InvalidHost, []string{`"::"`}},
		{"0.0.0.0", "http://0.0.0.0:3000", 0, refusal.InvalidHost, []string{"0.0.0.0"}},
		{"0", "http://0:3000", 0, refusal.InvalidHost, []string{`"0"`}},
		{"decimal", "http://2130706433:3000", 0, refusal.InvalidHost, []string{"2130706433"}},
		{"hex", "http://0x7f000001:3000", 0, refusal.InvalidHost, []string{"0x7f000001"}},
		{"octal", "http://0177.0.0.1:3000", 0, refusal.InvalidHost, []string{"0177.0.0.1"}},
		{"short", "http://127.1:3000", 0, refusal.InvalidHost, []string{"127.1"}},
		{"zone fe80", "http://[fe80::1%25eth0]:3000", 0, refusal.InvalidHost, []string{"fe80::1"}},
		{"zone ::1", "http://[::1%25lo]:3000", 0, refusal.InvalidHost, []string{"::1%lo"}},
		{"RFC 1918", "http://10.0.0.1:3000", 0, refusal.InvalidHost, []string{"10.0.0.1"}},
		{"metadata", "http://169.254.169.254:3000", 0, refusal.InvalidHost, []string{"169.254.169.254"}},
		{"public name", "http://example.com:3000", 0, refusal.InvalidHost, []string{"example.com"}},
		{"subdomain of localhost", "http://a.localhost:3000", 0, refusal.InvalidHost, []string{"a.localhost"}},
		{"full-width colon", "http://localhost：3000", 0, refusal.InvalidHost, nil},
		{"no host", "http://:3000", 0, refusal.InvalidHost, nil},
		{"two trailing dots", "http://localhost..:3000", 0, refusal.InvalidHost, nil},

		{"scheme ftp", "ftp://localhost:3000", 0, refusal.SchemeNotAllowed, []string{`"ftp"`}},
		{"scheme ws", "ws://localhost:3000", 0, refusal.SchemeNotAllowed, []string{`"ws"`}},
		{"scheme file", "file://", 0, refusal.SchemeNotAllowed, []string{`"file"`}},
		{"no scheme", "//localhost:3000", 0, refusal.SchemeNotAllowed, []string{`""`}},
		{"unparsable", "http://[::1", 0, refusal.InvalidArguments, []string{"cannot be parsed"}},
		{"space in host", "http://local host:3000", 0, refusal.InvalidArguments, nil},

		{"user and password", "http://alice:s3cr3tpw@localhost:3000", 0, refusal.CredentialsInURL, []string{"localhost"}},
		{"user only", "http://alice@localhost:3000", 0, refusal.CredentialsInURL, nil},
		{"password only", "http://:s3cr3tpw@127.0.0.1:3000", 0, refusal.CredentialsInURL, nil},
		{"empty userinfo", "http://@localhost:3000", 0, refusal.CredentialsInURL, nil},
		{"credentials on a listed port", "https://alice:s3cr3tpw@[::1]:443", 0, refusal.CredentialsInURL, nil},

		{"no port", "http://localhost", 0, refusal.LocalPortMissing, []string{"localhost"}},
		{"empty port", "http://localhost:", 0, refusal.LocalPortMissing, nil},
		{"no port https", "https://127.0.0.1", 0, refusal.LocalPortMissing, nil},
		{"no port v6", "http://[::1]", 0, refusal.LocalPortMissing, []string{"::1"}},
		{"empty port v6", "http://[::1]:", 0, refusal.LocalPortMissing, nil},

		{"port 0", "http://localhost:0", 0, refusal.InvalidArguments, []string{`port "0"`}},
		{"port 65536", "http://localhost:65536", 0, refusal.InvalidArguments, []string{`"65536"`}},
		{"port huge", "http://localhost:99999999999", 0, refusal.InvalidArguments, nil},
		{"port leading zero", "http://localhost:03000", 0, refusal.InvalidArguments, []string{`"03000"`}},
		{"port not numeric", "http://localhost:http", 0, refusal.InvalidArguments, nil},

		{"port not allowed", "http://localhost:8080", 0, refusal.LocalPortNotAllowed, []string{"port 8080", AllowlistPath(ws), "allowed: 443, 3000"}},
		{"port not allowed v6", "http://[::1]:22", 0, refusal.LocalPortNotAllowed, []string{"port 22", "::1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.url + secretTail
			port, err := AdmitLocalURL(raw, ws, Profile)
			if port != tc.wantPort {
				t.Errorf("AdmitLocalURL(%q) port = %d; want %d", raw, port, tc.wantPort)
			}
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("AdmitLocalURL(%q) = %v; want admitted", raw, err)
				}
				if !IsLocalTarget(raw) {
					t.Errorf("admitted %q, which IsLocalTarget rejects", raw)
				}
				return
			}
			r := checkRefusal(t, err, tc.wantCode, tc.wantText...)
			checkSecretFree(t, r)
		})
	}
}

// checkSecretFree fails if the refusal's message or hint holds any part of
// the URL's path, query, fragment or user information.
func checkSecretFree(t *testing.T, r *refusal.Error) {
	t.Helper()
	for _, s := range secretParts {
		if strings.Contains(r.Message, s) || strings.Contains(r.Hint, s) {
			t.Errorf("refusal leaks %q: message %q, hint %q", s, r.Message, r.Hint)
		}
	}
}

// TestAdmitLocalURLOrder checks the rule's order: each URL fails two checks
// and must be refused by the earlier one.
func TestAdmitLocalURLOrder(t *testing.T) {
	ws := newWorkspace(t) // no allowlist at all
	tests := []struct {
		name    string
		url     string
		profile risk.Profile
		want    refusal.Code
	}{
		{"profile before parse", "http://[::1", risk.Standard, refusal.LocalProfileNotPermissive},
		{"profile before scheme", "ftp://localhost:3000/", risk.Strict, refusal.LocalProfileNotPermissive},
		{"scheme before host", "ftp://example.com/", Profile, refusal.SchemeNotAllowed},
		{"host before credentials", "http://u:p@127.0.0.2:3000/", Profile, refusal.InvalidHost},
		{"credentials before port", "http://u:p@localhost/", Profile, refusal.CredentialsInURL},
		{"missing port before allowlist", "http://localhost/", Profile, refusal.LocalPortMissing},
		{"bad port before allowlist", "http://localhost:0/", Profile, refusal.InvalidArguments},
		{"allowlist last", "http://localhost:3000/", Profile, refusal.LocalAllowlistMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AdmitLocalURL(tc.url, ws, tc.profile)
			checkCode(t, err, tc.want)
		})
	}
}

// TestAdmitLocalURLProfile: only permissive admits, whatever the allowlist
// says, and the refusal names the profile and how to change it.
func TestAdmitLocalURLProfile(t *testing.T) {
	ws := newWorkspace(t)
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [3000]}`)
	tests := []struct {
		profile risk.Profile
		named   string
	}{
		{risk.Standard, "active profile is standard"},
		{risk.Strict, "active profile is strict"},
		{"", `active profile is ""`},
		{"PERMISSIVE", `active profile is "PERMISSIVE"`},
		{"permissive ", `active profile is "permissive "`},
	}
	for _, tc := range tests {
		t.Run(string(tc.profile), func(t *testing.T) {
			port, err := AdmitLocalURL("http://localhost:3000"+secretTail, ws, tc.profile)
			if port != 0 {
				t.Errorf("port = %d; want 0", port)
			}
			r := checkRefusal(t, err, refusal.LocalProfileNotPermissive, tc.named)
			if !strings.Contains(r.Hint, "permissive") || !strings.Contains(r.Hint, ws.SettingsPath()) {
				t.Errorf("hint %q does not say how to select permissive", r.Hint)
			}
			checkSecretFree(t, r)
		})
	}
}

// TestAdmitLocalURLNoCaching is the seed's "no caching" contract: the file is
// read on every call, so an edit takes effect on the next call and a
// deletion or corruption closes the door at once.
func TestAdmitLocalURLNoCaching(t *testing.T) {
	ws := newWorkspace(t)
	admit := func(port string) error {
		_, err := AdmitLocalURL("http://127.0.0.1:"+port+"/", ws, Profile)
		return err
	}

	checkCode(t, admit("3000"), refusal.LocalAllowlistMissing)

	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [3000]}`)
	if err := admit("3000"); err != nil {
		t.Fatalf("after creating the file: %v; want 3000 admitted", err)
	}
	checkCode(t, admit("8080"), refusal.LocalPortNotAllowed)

	// An edit by hand takes effect on the next call.
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [8080]}`)
	checkCode(t, admit("3000"), refusal.LocalPortNotAllowed)
	if err := admit("8080"); err != nil {
		t.Fatalf("after editing the file: %v; want 8080 admitted", err)
	}

	// Corruption closes the door for every port, including listed ones.
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [8080, true]}`)
	checkCode(t, admit("8080"), refusal.LocalAllowlistInvalid)

	// Deletion closes the door at once.
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [8080]}`)
	if err := admit("8080"); err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.Remove(AllowlistPath(ws)))
	checkCode(t, admit("8080"), refusal.LocalAllowlistMissing)
}

// TestAdmitLocalURLPerWorkspace: the allowlist of one project does not open
// ports in another.
func TestAdmitLocalURLPerWorkspace(t *testing.T) {
	a, b := newWorkspace(t), newWorkspace(t)
	writeAllowlistFile(t, a, `{"schema_version": 1, "ports": [3000]}`)
	if _, err := AdmitLocalURL("http://localhost:3000/", a, Profile); err != nil {
		t.Fatal(err)
	}
	_, err := AdmitLocalURL("http://localhost:3000/", b, Profile)
	checkRefusal(t, err, refusal.LocalAllowlistMissing, AllowlistPath(b))
}

func BenchmarkAdmitLocalURL(b *testing.B) {
	ws := newWorkspace(b)
	writeAllowlistFile(b, ws, `{"schema_version": 1, "ports": [3000, 5173, 8080]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AdmitLocalURL("http://localhost:8080/some/page?x=1", ws, Profile); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIsLocalTarget(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !IsLocalTarget("http://localhost:8080/some/page?x=1") {
			b.Fatal("not local")
		}
	}
}

func BenchmarkReadAllowedPorts(b *testing.B) {
	ws := newWorkspace(b)
	writeAllowlistFile(b, ws, `{"schema_version": 1, "ports": [3000, 5173, 8080]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadAllowedPorts(ws); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAllowlist(b *testing.B) {
	data := []byte(`{"schema_version": 1, "ports": [3000, 5173, 8080]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseAllowlist(data); err != nil {
			b.Fatal(err)
		}
	}
}
