// Package testws builds the temporary workspaces ocfetch's tests run in:
// a fresh root under t.TempDir() and, as a [Spec] says, the .oc_chat files a
// user would have written by hand (settings.json with a risk profile,
// local_fetch.json with ports, rules.json with allow and deny rules).
//
// The files are written as plain JSON text, not through the packages that
// own them, so a test of those readers starts from what is on disk.
//
// Wiring, in a test:
//
//	ws := testws.New(t, testws.Spec{
//		Profile:    "permissive",
//		LocalPorts: []uint16{port},
//		Allow:      []string{"example.com:443"},
//	})
//	sc, _ := scope.Open(ws, scope.Flags{}, layers)
package testws

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/workspace"
)

// Spec says what a test workspace holds under .oc_chat/. The zero Spec is
// an empty .oc_chat directory.
type Spec struct {
	Profile    string   // settings.json risk_profile; "" for no file
	LocalPorts []uint16 // local_fetch.json ports; nil for no file
	Allow      []string // "host:port" allow rules ("[v6]:port" for IPv6)
	Deny       []string // "host:port" deny rules
	RawRules   string   // rules.json as is, instead of Allow/Deny
	RawLocal   string   // local_fetch.json as is, instead of LocalPorts
}

// Bare returns a workspace rooted in a fresh temporary directory, with no
// .oc_chat directory in it.
func Bare(t testing.TB) workspace.Workspace {
	t.Helper()
	ws, err := workspace.Resolve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// New returns a workspace rooted in a fresh temporary directory, with its
// .oc_chat directory created and the files of spec written.
func New(t testing.TB, spec Spec) workspace.Workspace {
	t.Helper()
	ws := Bare(t)
	Write(t, ws, spec)
	return ws
}

// Write creates ws's .oc_chat directory if needed and (over)writes the
// files spec names; files it does not name are left alone. With both
// RawRules and Allow/Deny, the rules from Allow/Deny win; with both
// LocalPorts and RawLocal, RawLocal wins.
func Write(t testing.TB, ws workspace.Workspace, spec Spec) {
	t.Helper()
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	if spec.Profile != "" {
		WriteFile(t, ws.SettingsPath(), fmt.Sprintf(`{"schema_version": 1, "risk_profile": %q}`, spec.Profile))
	}
	if spec.LocalPorts != nil {
		ports, err := json.Marshal(spec.LocalPorts)
		if err != nil {
			t.Fatal(err)
		}
		WriteFile(t, ws.LocalFetchPath(), fmt.Sprintf(`{"schema_version": 1, "ports": %s}`, ports))
	}
	if spec.RawLocal != "" {
		WriteFile(t, ws.LocalFetchPath(), spec.RawLocal)
	}
	if spec.RawRules != "" {
		WriteFile(t, ws.RulesPath(), spec.RawRules)
	}
	if len(spec.Allow)+len(spec.Deny) > 0 {
		var rs []string
		add := func(decision, hostport string) {
			i := strings.LastIndexByte(hostport, ':')
			if i < 0 {
				t.Fatalf("rule target %q has no port", hostport)
			}
			host, port := strings.TrimSuffix(strings.TrimPrefix(hostport[:i], "["), "]"), hostport[i+1:]
			rs = append(rs, fmt.Sprintf(`{"capability": "network", "target": {"schema": "network.target.v1", "host": %q, "port": %s}, "decision": %q}`, host, port, decision))
		}
		for _, a := range spec.Allow {
			add("allow", a)
		}
		for _, d := range spec.Deny {
			add("deny", d)
		}
		WriteFile(t, ws.RulesPath(), `{"schema_version": 1, "rules": [`+strings.Join(rs, ", ")+`]}`)
	}
}

// WriteFile writes data to path as a user would by hand (not atomically,
// mode 0600), creating its directory if needed.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
