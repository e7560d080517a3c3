package capability_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
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

// TestNewTarget: the one constructor from a host and a port normalises
// the host and refuses what does not normalise, and port 0.
func TestNewTarget(t *testing.T) {
	for _, tc := range []struct {
		host    string
		port    uint16
		want    string
		wantErr error
	}{
		{"example.com", 443, "example.com:443", nil},
		{"EXAMPLE.com.", 443, "example.com:443", nil},
		{"Bücher.example", 8443, "xn--bcher-kva.example:8443", nil},
		{"[0:0::1]", 3000, "[::1]:3000", nil},
		{"::1", 1, "[::1]:1", nil},
		{"example.com", 0, "", capability.ErrInvalidPort},
		{"", 443, "", capability.ErrInvalidHost},
		{"127.1", 443, "", capability.ErrInvalidHost},
		{"example.com:443", 443, "", capability.ErrInvalidHost},
	} {
		t.Run(tc.host, func(t *testing.T) {
			got, err := capability.NewTarget(tc.host, tc.port)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("NewTarget(%q, %d) = %v, %v; want error %v", tc.host, tc.port, got, err, tc.wantErr)
			}
			if err != nil {
				if !got.IsZero() {
					t.Errorf("NewTarget refused with %v; want the zero Target", got)
				}
				return
			}
			if got.String() != tc.want || got.IsZero() {
				t.Errorf("NewTarget(%q, %d) = %v; want %s", tc.host, tc.port, got, tc.want)
			}
			if again := capability.MustTarget(got.Host(), got.Port()); again != got {
				t.Errorf("MustTarget(%q, %d) = %v; want %v (a fixed point)", got.Host(), got.Port(), again, got)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("MustTarget of an invalid host did not panic")
		}
	}()
	capability.MustTarget("127.1", 80)
}

// TestTargetUnmarshalJSON: decoding keeps only a target already in normal
// form (what MarshalJSON writes round-trips); anything else is refused,
// never normalised into another target nor kept unnormalised.
func TestTargetUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    capability.Target
		wantErr error
	}{
		{`{"host":"example.com","port":443}`, capability.MustTarget("example.com", 443), nil},
		{`{"host":"::1","port":8080}`, capability.MustTarget("::1", 8080), nil},
		{`{"port":8080,"host":"xn--bcher-kva.example"}`, capability.MustTarget("bücher.example", 8080), nil},
		{`{"host":"","port":0}`, capability.Target{}, nil},
		{`{}`, capability.Target{}, nil},
		{`null`, capability.Target{}, nil},
		{`{"host":"EXAMPLE.com","port":443}`, capability.Target{}, capability.ErrInvalidHost},
		{`{"host":"[::1]","port":443}`, capability.Target{}, capability.ErrInvalidHost},
		{`{"host":"bücher.example","port":443}`, capability.Target{}, capability.ErrInvalidHost},
		{`{"host":"127.1","port":443}`, capability.Target{}, capability.ErrInvalidHost},
		{`{"host":"","port":443}`, capability.Target{}, capability.ErrInvalidHost},
		{`{"host":"example.com","port":0}`, capability.Target{}, capability.ErrInvalidPort},
		{`{"host":"example.com"}`, capability.Target{}, capability.ErrInvalidPort},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var got capability.Target
			err := json.Unmarshal([]byte(tc.in), &got)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) || got != tc.want {
				t.Fatalf("Unmarshal(%s) = %v, %v; want %v, %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "example") {
				t.Errorf("error %q quotes the host", err)
			}
			if err == nil {
				back, _ := json.Marshal(got)
				var again capability.Target
				if err := json.Unmarshal(back, &again); err != nil || again != got {
					t.Errorf("round trip of %s = %v, %v; want %v", back, again, err, got)
				}
			}
		})
	}
	var r capability.Requirement
	err := json.Unmarshal([]byte(`{"capability":"network","target":{"host":"example.com","port":70000}}`), &r)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "target.port" {
		t.Errorf("Unmarshal of port 70000 = %v; want an UnmarshalTypeError naming target.port", err)
	}
}
