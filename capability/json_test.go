package capability_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
)

// target is ParseTarget that fails the test on an error.
func target(t *testing.T, hostport string, defaultPort uint16) capability.Target {
	t.Helper()
	tg, err := capability.ParseTarget(hostport, defaultPort)
	if err != nil {
		t.Fatalf("ParseTarget(%q) = %v", hostport, err)
	}
	return tg
}

// TestJSONShapes pins the JSON of every capability type that holds a
// Target (audit lines, tool.Request, `explain --json` write them): the
// bytes stay what they are whatever Target's representation.
func TestJSONShapes(t *testing.T) {
	name := target(t, "Example.COM.", 443)
	v6 := target(t, "[0:0:0:0:0:0:0:1]:8080", 0)
	o := capability.Origin{Scheme: "http", Target: target(t, "localhost:3000", 0), PortWritten: true}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"target", name, `{"host":"example.com","port":443}`},
		{"IPv6 target", v6, `{"host":"::1","port":8080}`},
		{"zero target", capability.Target{}, `{"host":"","port":0}`},
		{"target pointer", &name, `{"host":"example.com","port":443}`},
		{"nil target pointer", (*capability.Target)(nil), `null`},
		{"requirement", capability.Network(name), `{"capability":"network","target":{"host":"example.com","port":443}}`},
		{"IPv6 requirement", capability.Network(v6), `{"capability":"network","target":{"host":"::1","port":8080}}`},
		{"origin requirement", capability.NetworkOrigin(o), `{"capability":"network","target":{"host":"localhost","port":3000}}`},
		{"zero requirement", capability.Requirement{}, `{"capability":"","target":{"host":"","port":0}}`},
		{"origin", o, `{"Scheme":"http","Target":{"host":"localhost","port":3000},"PortWritten":true}`},
		{"requirements", []capability.Requirement{capability.Network(name), capability.Network(v6)},
			`[{"capability":"network","target":{"host":"example.com","port":443}},{"capability":"network","target":{"host":"::1","port":8080}}]`},
		{"map value", map[string]capability.Target{"a": v6}, `{"a":{"host":"::1","port":8080}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("json.Marshal = %s; want %s", got, tc.want)
			}
			indented, err := json.MarshalIndent(tc.v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Indent(&want, []byte(tc.want), "", "  "); err != nil {
				t.Fatal(err)
			}
			if string(indented) != want.String() {
				t.Errorf("json.MarshalIndent = %s; want %s", indented, want.String())
			}
		})
	}
}
