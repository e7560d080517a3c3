package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

func newWS(t *testing.T) workspace.Workspace {
	t.Helper()
	return workspace.Workspace{Root: t.TempDir()}
}

func writeRules(t *testing.T, ws workspace.Workspace, content string) {
	t.Helper()
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.RulesPath(), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// doc returns a schema 1 document holding the given rule objects.
func doc(ruleObjs ...string) string {
	return `{"schema_version": 1, "rules": [` + strings.Join(ruleObjs, ", ") + `]}`
}

// ruleObj returns one rule object with the given JSON host, port and decision.
func ruleObj(host, port, decision string) string {
	return `{"capability": "network", "target": {"schema": "network.target.v1", "host": ` + host + `, "port": ` + port + `}, "decision": ` + decision + `}`
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	for _, name := range []string{"no .oc_chat", "no rules.json"} {
		t.Run(name, func(t *testing.T) {
			ws := newWS(t)
			if name == "no rules.json" {
				if err := ws.EnsureDir(); err != nil {
					t.Fatal(err)
				}
			}
			set, err := rules.Load(ws)
			if err != nil || set.Len() != 0 {
				t.Fatalf("Load = %v rules, %v; want an empty set", set.Len(), err)
			}
			if _, ok := set.Decide(capability.Network(capability.MustTarget("example.com", 443))); ok {
				t.Errorf("empty set decided; want no match")
			}
		})
	}
}

func TestLoadInvalid(t *testing.T) {
	valid := ruleObj(`"example.com"`, `443`, `"allow"`)
	tests := []struct {
		name    string
		content string
		want    string // a substring of the message
	}{
		{"empty file", ``, "empty or truncated"},
		{"truncated", `{"schema_version": 1, "rules": [`, "empty or truncated"},
		{"malformed", `{"schema_version": 1, "rules": [}`, "invalid JSON"},
		{"not UTF-8", "{\"schema_version\": 1, \"rules\": [], \"\xff\": 1}", "UTF-8"},
		{"trailing garbage", doc() + ` x`, "trailing data"},
		{"trailing object", doc() + `{}`, "trailing data"},
		{"top-level array", `[]`, "a JSON array where an object is expected"},
		{"top-level null", `null`, "schema_version is missing"},
		{"duplicate top-level key", `{"schema_version": 1, "schema_version": 1, "rules": []}`, `duplicate field "schema_version"`},
		{"duplicate rules key", `{"schema_version": 1, "rules": [], "rules": [` + valid + `]}`, `duplicate field "rules"`},
		{"duplicate target key", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "host": "b.example", "port": 443}, "decision": "allow"}`), `duplicate field "host"`},
		{"duplicate key spelled with an escape", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "\u0068ost": "b.example", "port": 443}, "decision": "allow"}`), `duplicate field "host"`},
		{"unknown top-level field", `{"schema_version": 1, "rules": [], "comment": "x"}`, `unknown field "comment"`},
		{"unknown rule field", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "allow", "expires": 1}`), `unknown field "expires"`},
		{"known key at the wrong level", `{"schema_version": 1, "rules": [], "host": "example.com"}`, `unknown field "host"`},
		{"key in another case", `{"schema_version": 1, "Rules": []}`, `unknown field "Rules"`},
		{"key folding to a known one", `{"ſchema_version": 1, "rules": []}`, `unknown field`},
		{"schema_version missing", `{"rules": []}`, "schema_version is missing"},
		{"schema_version 2", `{"schema_version": 2, "rules": []}`, "schema_version 2 is not supported"},
		{"schema_version string", `{"schema_version": "1", "rules": []}`, `schema_version "1" is not supported`},
		{"schema_version 1.0", `{"schema_version": 1.0, "rules": []}`, "schema_version 1.0 is not supported"},
		{"schema_version null", `{"schema_version": null, "rules": []}`, "schema_version null is not supported"},
		{"rules missing", `{"schema_version": 1}`, `"rules" is missing`},
		{"rules null", `{"schema_version": 1, "rules": null}`, `"rules" is missing`},
		{"rules object", `{"schema_version": 1, "rules": {}}`, "rules: a JSON object where an array is expected"},
		{"rule null", doc(`null`), "rule 1: capability is missing"},
		{"rule string", doc(`"allow example.com"`), "a JSON string where an object is expected"},
		{"capability missing", doc(`{"target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "allow"}`), "rule 1: capability is missing"},
		{"capability unknown", doc(valid, `{"capability": "filesystem", "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "allow"}`), `rule 2: unknown capability "filesystem"`},
		{"capability number", doc(`{"capability": 1, "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "allow"}`), "a JSON number where a string is expected"},
		{"target missing", doc(`{"capability": "network", "decision": "allow"}`), "rule 1: target is missing"},
		{"target schema missing", doc(`{"capability": "network", "target": {"host": "a.example", "port": 443}, "decision": "allow"}`), "target.schema is missing"},
		{"target schema unknown", doc(`{"capability": "network", "target": {"schema": "network.target.v2", "host": "a.example", "port": 443}, "decision": "allow"}`), `unknown target schema "network.target.v2"`},
		{"host missing", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "port": 443}, "decision": "allow"}`), "target.host is missing"},
		{"host empty", doc(ruleObj(`""`, `443`, `"allow"`)), "host: invalid host"},
		{"host star deny", doc(ruleObj(`"*"`, `443`, `"deny"`)), `host "*" is the open-web rule, allow *:443 only`},
		{"host star port 80", doc(ruleObj(`"*"`, `80`, `"allow"`)), `host "*" is the open-web rule, allow *:443 only`},
		{"host wildcard TLD", doc(ruleObj(`"*.com"`, `443`, `"allow"`)), "at least two labels"},
		{"host partial wildcard", doc(ruleObj(`"a*.example.com"`, `443`, `"allow"`)), "host: invalid host"},
		{"host IP wildcard", doc(ruleObj(`"*.0.0.1"`, `443`, `"allow"`)), "host: invalid host"},
		{"host with space", doc(ruleObj(`"exa mple.com"`, `443`, `"allow"`)), "host: invalid host"},
		{"host with path", doc(ruleObj(`"example.com/x"`, `443`, `"allow"`)), "host: invalid host"},
		{"host with port", doc(ruleObj(`"example.com:443"`, `443`, `"allow"`)), "host: invalid host"},
		{"host non-canonical IPv4", doc(ruleObj(`"127.1"`, `443`, `"allow"`)), "non-canonical IPv4"},
		{"host IPv6 zone", doc(ruleObj(`"fe80::1%eth0"`, `443`, `"allow"`)), "zone"},
		{"port missing", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example"}, "decision": "allow"}`), "target.port is missing"},
		{"port null", doc(ruleObj(`"a.example"`, `null`, `"allow"`)), "target.port is missing"},
		{"port 0", doc(ruleObj(`"a.example"`, `0`, `"allow"`)), "target.port 0 is not an integer 1–65535"},
		{"port 65536", doc(ruleObj(`"a.example"`, `65536`, `"allow"`)), "target.port 65536 is not"},
		{"port negative", doc(ruleObj(`"a.example"`, `-443`, `"allow"`)), "target.port -443 is not"},
		{"port fraction", doc(ruleObj(`"a.example"`, `443.0`, `"allow"`)), "target.port 443.0 is not"},
		{"port exponent", doc(ruleObj(`"a.example"`, `4.43e2`, `"allow"`)), "target.port 4.43e2 is not"},
		{"port string", doc(ruleObj(`"a.example"`, `"443"`, `"allow"`)), `target.port "443" is not`},
		{"port huge", doc(ruleObj(`"a.example"`, `18446744073709551616443`, `"allow"`)), "is not an integer"},
		{"decision missing", doc(`{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}}`), "decision is missing"},
		{"decision unknown", doc(ruleObj(`"a.example"`, `443`, `"ask"`)), `decision "ask" is not "allow" or "deny"`},
		{"decision other case", doc(ruleObj(`"a.example"`, `443`, `"Allow"`)), `decision "Allow" is not`},
		{"decision bool", doc(ruleObj(`"a.example"`, `443`, `true`)), "a JSON bool where a string is expected"},
		{"too deep", `{"schema_version": 1, "rules": [[[[[[[[[[1]]]]]]]]]]}`, "nested deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			writeRules(t, ws, tc.content)
			set, err := rules.Load(ws)
			checkInvalid(t, ws, set, err, tc.want)
		})
	}
}

// checkInvalid asserts a rules_invalid refusal that names the file and
// says want.
func checkInvalid(t *testing.T, ws workspace.Workspace, set *rules.Set, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Load = %d rules, nil error; want rules_invalid", set.Len())
	}
	r, ok := refusal.As(err)
	if !ok || r.Code != refusal.RulesInvalid {
		t.Fatalf("Load error = %v (code %q); want code %q", err, refusal.CodeOf(err), refusal.RulesInvalid)
	}
	if !strings.Contains(r.Message, ws.RulesPath()) {
		t.Errorf("message %q does not name the file %s", r.Message, ws.RulesPath())
	}
	if !strings.Contains(r.Message, want) {
		t.Errorf("message %q; want it to contain %q", r.Message, want)
	}
	if r.Hint == "" {
		t.Errorf("refusal has no hint")
	}
}

func TestLoadNotARegularFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"directory", func(t *testing.T, path string) { mkdir(t, path) }, "not a regular file (a directory)"},
		{"FIFO", func(t *testing.T, path string) {
			testio.Mkfifo(t, path)
		}, "not a regular file (a FIFO)"},
		{"symlink to /dev/null", func(t *testing.T, path string) { symlink(t, "/dev/null", path) }, "not a regular file: a symlink"},
		{"dangling symlink", func(t *testing.T, path string) { symlink(t, filepath.Join(filepath.Dir(path), "gone.json"), path) }, "not a regular file: a symlink"},
		{"over MaxFileSize", func(t *testing.T, path string) {
			big := doc() + strings.Repeat(" ", rules.MaxFileSize)
			if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "file too large"},
		{".oc_chat is a file", func(t *testing.T, path string) {
			dir := filepath.Dir(path)
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			if err := ws.EnsureDir(); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, ws.RulesPath())
			set, err := rules.Load(ws)
			checkInvalid(t, ws, set, err, tc.want)
		})
	}
}

// TestLoadRefusesSymlinkToRegularFile: a rules.json that is a symlink is
// refused by name even when it leads to a valid file; it is never followed
// (issue 12: no read or write leaves the workspace).
func TestLoadRefusesSymlinkToRegularFile(t *testing.T) {
	ws := newWS(t)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(ws.Root, "shared-rules.json")
	if err := os.WriteFile(real, []byte(doc(ruleObj(`"example.com"`, `443`, `"allow"`))), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, real, ws.RulesPath())
	set, err := rules.Load(ws)
	checkInvalid(t, ws, set, err, "a symlink, which ocfetch never follows")
}

func TestLoadNormalisesHosts(t *testing.T) {
	ws := newWS(t)
	writeRules(t, ws, doc(
		ruleObj(`"Example.COM."`, `443`, `"allow"`),
		ruleObj(`"bücher.example"`, `443`, `"allow"`),
		ruleObj(`"*.ＥＸＡＭＰＬＥ.org"`, `8443`, `"deny"`),
		ruleObj(`"[0:0:0:0:0:0:0:1]"`, `8080`, `"allow"`),
	))
	set, err := rules.Load(ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range set.Rules() {
		got = append(got, r.String())
	}
	want := []string{"deny *.example.org:8443", "allow [::1]:8080", "allow example.com:443", "allow xn--bcher-kva.example:443"}
	// Sorted by host: "*.example.org" < "::1" < "example.com" < "xn--…".
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rules() mismatch (-want +got):\n%s", diff)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
