package testws

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/risk"
)

// TestNew checks that the files New writes are what the owning packages
// read: the profile, the ports, and rules.json as exact text.
func TestNew(t *testing.T) {
	ws := New(t, Spec{
		Profile:    "permissive",
		LocalPorts: []uint16{3000, 8080},
		Allow:      []string{"example.com:443"},
		Deny:       []string{"*.example.com:443"},
	})
	if p, err := risk.Resolve(ws, ""); err != nil || p != risk.Permissive {
		t.Errorf("risk.Resolve: got %v, %v; want %v, nil", p, err, risk.Permissive)
	}
	ports, err := localfetch.ReadAllowedPorts(ws)
	if err != nil || !cmp.Equal([]uint16(ports), []uint16{3000, 8080}) {
		t.Errorf("ReadAllowedPorts: got %v, %v; want [3000 8080], nil", ports, err)
	}
	got, err := os.ReadFile(ws.RulesPath())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version": 1, "rules": [` +
		`{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}, ` +
		`{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.example.com", "port": 443}, "decision": "deny"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("rules.json (-want +got)\n%s", diff)
	}
}

func TestBareAndRaw(t *testing.T) {
	ws := Bare(t)
	if _, err := os.Stat(ws.Dir()); !os.IsNotExist(err) {
		t.Errorf("Bare: stat %s: got %v; want not exist", ws.Dir(), err)
	}
	Write(t, ws, Spec{LocalPorts: []uint16{1}, RawLocal: "{", RawRules: "[]"})
	for path, want := range map[string]string{ws.LocalFetchPath(): "{", ws.RulesPath(): "[]"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(ws.SettingsPath()); !os.IsNotExist(err) {
		t.Errorf("settings.json: got %v; want no file without Profile", err)
	}
}
