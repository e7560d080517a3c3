package risk

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
	"go.uber.org/goleak"
)

// TestMain fails the package if a hang-guard goroutine outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Profile
		wantErr bool
	}{
		{"strict", Strict, false},
		{"standard", Standard, false},
		{"permissive", Permissive, false},
		{"", "", true},
		{"Permissive", "", true},
		{"PERMISSIVE", "", true},
		{" strict", "", true},
		{"strict ", "", true},
		{"permissive\x00", "", true},
		{"lenient", "", true},
		{"ｓｔｒｉｃｔ", "", true}, // full-width: names are exact
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if got != tc.want {
				t.Errorf("Parse(%q) = %q; want %q", tc.in, got, tc.want)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%q) error = %v; want error %v", tc.in, err, tc.wantErr)
			}
			if err == nil {
				return
			}
			if got := refusal.CodeOf(err); got != refusal.InvalidArguments {
				t.Errorf("code = %q; want %q", got, refusal.InvalidArguments)
			}
			if !errors.Is(err, ErrUnknownProfile) {
				t.Errorf("error %v does not wrap ErrUnknownProfile", err)
			}
			if !strings.Contains(err.Error(), "strict, standard, permissive") {
				t.Errorf("error %q does not list the valid profiles", err)
			}
		})
	}
}

func TestParseMessageSanitized(t *testing.T) {
	_, err := Parse("per\nmissive\x1b[31m" + strings.Repeat("x", 500))
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("Parse error %v is not a *refusal.Error", err)
	}
	if strings.ContainsAny(r.Message, "\n\x1b") || len(r.Message) > 200 {
		t.Errorf("message %q carries control bytes or is unbounded", r.Message)
	}
	if !strings.Contains(r.Message, "per?missive") {
		t.Errorf("message %q does not name the (sanitized) value", r.Message)
	}
}

func TestValid(t *testing.T) {
	for _, p := range Profiles {
		if !p.Valid() {
			t.Errorf("%q.Valid() = false; want true", p)
		}
	}
	if Profile("").Valid() {
		t.Error(`Profile("").Valid() = true; want false`)
	}
}

// newWorkspace returns a workspace in a fresh temporary directory; when
// settings is non-nil it is written to .oc_chat/settings.json.
func newWorkspace(t *testing.T, settings []byte) workspace.Workspace {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	if settings != nil {
		if err := ws.EnsureDir(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws.SettingsPath(), settings, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestResolveExplicit(t *testing.T) {
	// An explicit value wins even over a broken settings file: the flag is
	// how a user gets past it.
	ws := newWorkspace(t, []byte("not json"))
	got, err := Resolve(ws, "permissive")
	if err != nil || got != Permissive {
		t.Fatalf("Resolve(explicit permissive) = %q, %v; want permissive, nil", got, err)
	}
	_, err = Resolve(ws, "root")
	if code := refusal.CodeOf(err); code != refusal.InvalidArguments {
		t.Fatalf("Resolve(explicit root) code = %q (%v); want %q", code, err, refusal.InvalidArguments)
	}
	if !strings.Contains(err.Error(), `"root"`) {
		t.Errorf("error %q does not name the value", err)
	}
}

func TestResolveMissingIsStandard(t *testing.T) {
	for name, ws := range map[string]workspace.Workspace{
		"no .oc_chat":    newWorkspace(t, nil),
		"empty .oc_chat": func() workspace.Workspace { w := newWorkspace(t, nil); _ = w.EnsureDir(); return w }(),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Resolve(ws, "")
			if err != nil || got != Standard {
				t.Errorf("Resolve = %q, %v; want standard, nil", got, err)
			}
		})
	}
}

// TestResolveSymlinkRefused: a settings.json that is a symlink, even a
// dangling one, is refused by name and never followed (issue 12).
func TestResolveSymlinkRefused(t *testing.T) {
	ws := danglingSettings(t)
	_, err := Resolve(ws, "")
	if code := refusal.CodeOf(err); code != refusal.SettingsInvalid || !strings.Contains(err.Error(), ws.SettingsPath()) {
		t.Fatalf("Resolve(symlinked settings.json) = %v; want settings_invalid naming %s", err, ws.SettingsPath())
	}
}

func danglingSettings(t *testing.T) workspace.Workspace {
	ws := newWorkspace(t, nil)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws.Root, "nowhere"), ws.SettingsPath()); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestResolveSettings(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     Profile
		wantText string // part of the error message; "" means success
	}{
		{"standard", `{"schema_version": 1, "risk_profile": "standard"}`, Standard, ""},
		{"strict", `{"schema_version": 1, "risk_profile": "strict"}`, Strict, ""},
		{"permissive", `{"risk_profile": "permissive", "schema_version": 1}`, Permissive, ""},
		{"profile absent", `{"schema_version": 1}`, Standard, ""},
		{"whitespace around", " \n\t{\"schema_version\":1,\"risk_profile\":\"strict\"}\n\n", Strict, ""},
		{"escaped key", `{"schema_version": 1, "risk_\u0070rofile": "strict"}`, Strict, ""},

		{"empty file", ``, "", "empty"},
		{"only whitespace", "  \n", "", "empty"},
		{"invalid JSON", `{"schema_version": 1,}`, "", "invalid JSON"},
		{"truncated", `{"schema_version": 1`, "", "unexpected end"},
		{"not UTF-8", "{\"schema_version\": 1, \"risk_profile\": \"str\xffict\"}", "", "UTF-8"},
		{"BOM", "\ufeff{\"schema_version\": 1}", "", "a UTF-8 byte order mark (BOM) at byte 0; save it as UTF-8 without a BOM"},
		{"trailing data", `{"schema_version": 1} x`, "", "trailing data"},
		{"second object", `{"schema_version": 1}{}`, "", "trailing data"},
		{"list", `[{"schema_version": 1}]`, "", "a list"},
		{"string", `"permissive"`, "", "a string"},
		{"null", `null`, "", "null"},
		{"number", `1`, "", "a number"},
		{"schema missing", `{"risk_profile": "strict"}`, "", "schema_version is missing"},
		{"schema 2", `{"schema_version": 2, "risk_profile": "strict"}`, "", "schema_version 2 is not supported"},
		{"schema 0", `{"schema_version": 0}`, "", "not supported"},
		{"schema -1", `{"schema_version": -1}`, "", "not supported"},
		{"schema 1.0", `{"schema_version": 1.0}`, "", "not an integer"},
		{"schema 1e0", `{"schema_version": 1e0}`, "", "not an integer"},
		{"schema string", `{"schema_version": "1"}`, "", "schema_version is a string"},
		{"schema true", `{"schema_version": true}`, "", "schema_version is a boolean"},
		{"schema null", `{"schema_version": null}`, "", "schema_version is null"},
		{"schema list", `{"schema_version": [1]}`, "", "schema_version is a list"},
		{"profile unknown", `{"schema_version": 1, "risk_profile": "yolo"}`, "", `risk_profile "yolo"`},
		{"profile case", `{"schema_version": 1, "risk_profile": "Permissive"}`, "", `risk_profile "Permissive"`},
		{"profile empty", `{"schema_version": 1, "risk_profile": ""}`, "", `risk_profile ""`},
		{"profile number", `{"schema_version": 1, "risk_profile": 3}`, "", "risk_profile is a number"},
		{"profile null", `{"schema_version": 1, "risk_profile": null}`, "", "risk_profile is null"},
		{"profile object", `{"schema_version": 1, "risk_profile": {"x": 1}}`, "", "risk_profile is an object"},
		{"duplicate profile", `{"schema_version": 1, "risk_profile": "strict", "risk_profile": "permissive"}`, "", `duplicate key "risk_profile"`},
		{"duplicate via escape", `{"schema_version": 1, "risk_profile": "strict", "risk_profil\u0065": "permissive"}`, "", "duplicate key"},
		{"duplicate version", `{"schema_version": 1, "schema_version": 1}`, "", "duplicate key"},
		{"unknown key", `{"schema_version": 1, "risk-profile": "permissive"}`, "", `unknown key "risk-profile"`},
		{"key in other case", `{"Schema_Version": 1}`, "", "unknown key"},
		{"deep nesting", `{"schema_version": 1, "risk_profile": ` + strings.Repeat("[", 60000), "", "risk_profile is a list"},
		{"deep nesting top", strings.Repeat("[", 60000), "", "a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, []byte(tc.data))
			got, err := Resolve(ws, "")
			if tc.wantText == "" {
				if err != nil || got != tc.want {
					t.Fatalf("Resolve = %q, %v; want %q, nil", got, err, tc.want)
				}
				return
			}
			checkSettingsInvalid(t, ws, got, err, tc.wantText)
		})
	}
}

// checkSettingsInvalid asserts a settings_invalid refusal that names the
// file, says what is wrong (want) and carries a hint.
func checkSettingsInvalid(t *testing.T, ws workspace.Workspace, got Profile, err error, want string) {
	t.Helper()
	if got != "" {
		t.Errorf("profile = %q; want none on error", got)
	}
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("error %v is not a *refusal.Error", err)
	}
	if r.Code != refusal.SettingsInvalid {
		t.Errorf("code = %q; want %q", r.Code, refusal.SettingsInvalid)
	}
	if !strings.Contains(r.Message, ws.SettingsPath()) {
		t.Errorf("message %q does not name the file %s", r.Message, ws.SettingsPath())
	}
	if !strings.Contains(r.Message, want) {
		t.Errorf("message %q does not contain %q", r.Message, want)
	}
	if !strings.Contains(r.Hint, "schema_version") {
		t.Errorf("hint %q does not say how to fix the file", r.Hint)
	}
}

func TestResolveNotARegularFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"FIFO", func(t *testing.T, path string) {
			testio.Mkfifo(t, path)
		}, "not a regular file"},
		{"65 KiB", func(t *testing.T, path string) {
			data := `{"schema_version": 1, "risk_profile": "strict"}` + strings.Repeat(" ", 65<<10)
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			if err := ws.EnsureDir(); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, ws.SettingsPath())
			type result struct {
				p   Profile
				err error
			}
			done := make(chan result, 1)
			go func() {
				p, err := Resolve(ws, "")
				done <- result{p, err}
			}()
			select {
			case r := <-done:
				checkSettingsInvalid(t, ws, r.p, r.err, tc.want)
			case <-time.After(5 * time.Second):
				t.Fatal("Resolve hung on a non-regular settings file")
			}
		})
	}
}

func TestResolveUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads a mode-000 file anyway, so the case cannot be built.
		t.Skip("running as root: chmod 000 does not block reads")
	}
	ws := newWorkspace(t, []byte(`{"schema_version": 1, "risk_profile": "permissive"}`))
	if err := os.Chmod(ws.SettingsPath(), 0); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(ws, "")
	checkSettingsInvalid(t, ws, got, err, "permission denied")
}

func TestResolveNeverWrites(t *testing.T) {
	ws := newWorkspace(t, nil)
	if _, err := Resolve(ws, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ws.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Resolve created %s (stat error %v); it must only read", ws.Dir(), err)
	}
}

// FuzzParseSettings checks that the settings parser never panics and that
// whatever it accepts really is a settings object: valid JSON, an object,
// schema_version the integer 1 and a valid (or absent) risk_profile.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": 1, "risk_profile": "standard"}`,                             // the documented form
		`{"schema_version": 1}`,                                                         // profile absent
		`{"schema_version": 1.0, "risk_profile": "permissive"}`,                         // non-integer version
		`{"schema_version": 1, "risk_profile": "strict", "risk_profile": "permissive"}`, // duplicate
		`{"schema_version": 1, "risk_profile": "strict"} {}`,                            // trailing data
		`{"Schema_version": 1}`,                                                         // case-folded key
		"{\"schema_version\": 1, \"risk_profile\": \"\xff\"}",                           // invalid UTF-8
		`[[[[[[[[[[[[[[[[[[[[`,                                                          // nesting
		`{"schema_version": 1, "risk_profile": "str\u0069ct"}`,                          // escapes
		``, // empty
		`{"schema_version": 1, "upstream_proxy": "http://proxy.corp:3128"}`,                                                           // the proxy field
		`{"schema_version": 1, "upstream_proxy": ""}`,                                                                                 // empty proxy
		`{"schema_version": 1, "upstream_proxy": "http://p:1", "upstream_proxy_auth_file": "/etc/proxy-auth"}`,                        // credentials
		`{"schema_version": 1, "upstream_proxy_auth_file": "/etc/proxy-auth"}`,                                                        // credentials, no proxy
		`{"schema_version": 1, "upstream_proxy": "http://p:1", "upstream_proxy_auth_file": "auth"}`,                                   // relative
		`{"schema_version": 1, "upstream_proxy": "http://p:1", "upstream_proxy_exclude": ["*.corp.example", "intranet.example.com"]}`, // exclusions
		`{"schema_version": 1, "upstream_proxy_exclude": ["a.example"]}`,                                                              // exclusions, no proxy
		`{"schema_version": 1, "upstream_proxy": "http://p:1", "upstream_proxy_exclude": [["a"]]}`,                                    // nested
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseSettings(data)
		p := st.Profile
		if err != nil {
			if !reflect.DeepEqual(st, Settings{}) {
				t.Fatalf("parseSettings returned %+v with error %v", st, err)
			}
			return
		}
		if !p.Valid() {
			t.Fatalf("parseSettings accepted invalid profile %q", p)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("parseSettings accepted %q, which json.Unmarshal refuses: %v", data, err)
		}
		if v, ok := m["schema_version"].(float64); !ok || v != 1 {
			t.Fatalf("accepted schema_version %v", m["schema_version"])
		}
		for k := range m {
			if k != "schema_version" && k != "risk_profile" && k != "upstream_proxy" && k != "upstream_proxy_auth_file" && k != "upstream_proxy_exclude" {
				t.Fatalf("accepted unknown key %q", k)
			}
		}
		if up, ok := m["upstream_proxy"]; ok && up != st.UpstreamProxy || !ok && st.UpstreamProxy != "" {
			t.Fatalf("upstream_proxy %v, parsed as %q", up, st.UpstreamProxy)
		}
		if af, ok := m["upstream_proxy_auth_file"]; ok && (af != st.UpstreamProxyAuthFile || st.UpstreamProxy == "" || !filepath.IsAbs(st.UpstreamProxyAuthFile)) || !ok && st.UpstreamProxyAuthFile != "" {
			t.Fatalf("upstream_proxy_auth_file %v, parsed as %q (proxy %q)", af, st.UpstreamProxyAuthFile, st.UpstreamProxy)
		}
		if ex, ok := m["upstream_proxy_exclude"]; ok {
			list, isList := ex.([]any)
			if !isList || len(list) != len(st.UpstreamProxyExclude) || st.UpstreamProxy == "" {
				t.Fatalf("upstream_proxy_exclude %v, parsed as %q (proxy %q)", ex, st.UpstreamProxyExclude, st.UpstreamProxy)
			}
			for i, e := range list {
				if e != st.UpstreamProxyExclude[i] || e == "" {
					t.Fatalf("upstream_proxy_exclude[%d] %v, parsed as %q", i, e, st.UpstreamProxyExclude[i])
				}
			}
		} else if st.UpstreamProxyExclude != nil {
			t.Fatalf("absent upstream_proxy_exclude parsed as %q", st.UpstreamProxyExclude)
		}
		if rp, ok := m["risk_profile"]; ok && rp != string(p) {
			t.Fatalf("risk_profile %v, parsed as %q", rp, p)
		} else if !ok && p != Standard {
			t.Fatalf("absent risk_profile parsed as %q; want standard", p)
		}
	})
}

func TestReadSettingsUpstreamExclude(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
		errPart    string
	}{
		{"absent", `{"schema_version": 1, "upstream_proxy": "http://a:1"}`, nil, ""},
		{"set", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": ["*.corp.example", "intranet.example.com"]}`, []string{"*.corp.example", "intranet.example.com"}, ""},
		{"empty list", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": []}`, []string{}, ""},
		{"without a proxy", `{"schema_version": 1, "upstream_proxy_exclude": ["a.example"]}`, nil, "upstream_proxy names no proxy"},
		{"a string", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": "a.example"}`, nil, "upstream_proxy_exclude is a string; want a list"},
		{"a number in it", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": ["a.example", 1]}`, nil, "upstream_proxy_exclude[1] is a number"},
		{"an empty entry", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": [""]}`, nil, "upstream_proxy_exclude[0] is empty"},
		{"a control character", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": ["a\n.example"]}`, nil, "not printable ASCII"},
		{"nested", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": [["a"]]}`, nil, "upstream_proxy_exclude[0] is a list"},
		{"too many", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_exclude": [` + strings.TrimSuffix(strings.Repeat(`"a.example",`, 257), ",") + `]}`, nil, "more than 256 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, []byte(tc.data))
			got, err := ReadSettings(ws)
			if tc.errPart == "" {
				if err != nil || !reflect.DeepEqual(got.UpstreamProxyExclude, tc.want) {
					t.Fatalf("got %q, %v; want %q", got.UpstreamProxyExclude, err, tc.want)
				}
				return
			}
			if refusal.CodeOf(err) != refusal.SettingsInvalid || !strings.Contains(err.Error(), tc.errPart) || !strings.Contains(err.Error(), ws.SettingsPath()) {
				t.Fatalf("got %v; want settings_invalid naming the file and %q", err, tc.errPart)
			}
		})
	}
}

func TestReadSettingsUpstreamProxy(t *testing.T) {
	authPath := filepath.Join(t.TempDir(), "proxy-auth")
	quoted, _ := json.Marshal(authPath) // a JSON string (Windows' backslashes escaped)
	authJSON := string(quoted)
	for _, tc := range []struct {
		name, data, want, errPart string
	}{
		{"absent", `{"schema_version": 1}`, "", ""},
		{"set", `{"schema_version": 1, "risk_profile": "strict", "upstream_proxy": "http://proxy.corp:3128"}`, "http://proxy.corp:3128", ""},
		{"empty", `{"schema_version": 1, "upstream_proxy": ""}`, "", "upstream_proxy is empty"},
		{"a number", `{"schema_version": 1, "upstream_proxy": 3128}`, "", "upstream_proxy is"},
		{"control character", `{"schema_version": 1, "upstream_proxy": "http://a\n:1"}`, "", "not printable ASCII"},
		{"duplicate", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy": "http://b:1"}`, "", "duplicate"},
		{"with credentials", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_auth_file": ` + authJSON + `}`, "http://a:1", ""},
		{"credentials without a proxy", `{"schema_version": 1, "upstream_proxy_auth_file": ` + authJSON + `}`, "", "upstream_proxy names no proxy"},
		{"credentials at a relative path", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_auth_file": "proxy-auth"}`, "", "upstream_proxy_auth_file proxy-auth is not an absolute path"},
		{"credentials path a number", `{"schema_version": 1, "upstream_proxy": "http://a:1", "upstream_proxy_auth_file": 1}`, "", "upstream_proxy_auth_file is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, []byte(tc.data))
			got, err := ReadSettings(ws)
			if tc.errPart == "" {
				wantAuth := ""
				if strings.Contains(tc.data, "upstream_proxy_auth_file") {
					wantAuth = authPath
				}
				if err != nil || got.UpstreamProxy != tc.want || got.UpstreamProxyAuthFile != wantAuth {
					t.Fatalf("got %+v, %v; want upstream_proxy %q, upstream_proxy_auth_file %q", got, err, tc.want, wantAuth)
				}
				return
			}
			if refusal.CodeOf(err) != refusal.SettingsInvalid || !strings.Contains(err.Error(), tc.errPart) || !strings.Contains(err.Error(), ws.SettingsPath()) {
				t.Fatalf("got %v; want settings_invalid naming the file and %q", err, tc.errPart)
			}
		})
	}
}
