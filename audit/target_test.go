package audit_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
)

// TestRequirementLine: a line's requirement is written as it always was
// and read back only when its target is normalised: a line whose host is
// not in normal form, or that has no port, is a malformed line, never an
// entry with a target nobody normalised.
func TestRequirementLine(t *testing.T) {
	ws := newWS(t)
	e := entry("v6", 0)
	tgt, err := capability.ParseTarget("[0:0:0:0:0:0:0:1]:8080", 0)
	if err != nil {
		t.Fatal(err)
	}
	req := capability.Network(tgt)
	e.Requirement, e.Summary, e.Rule = &req, "GET [::1]", "allow [::1]:8080"
	if err := audit.Open(ws).Append(e); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	if want := `"requirement":{"capability":"network","target":{"host":"::1","port":8080}},`; !strings.Contains(string(data), want) {
		t.Errorf("line %s; want it to hold %s", data, want)
	}
	got, err := audit.Read(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]audit.Entry{e}, got); diff != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", diff)
	}

	line := strings.TrimSuffix(string(data), "\n")
	for _, tc := range []struct{ name, target string }{
		{"upper case host", `{"host":"EXAMPLE.com","port":443}`},
		{"trailing dot", `{"host":"example.com.","port":443}`},
		{"bracketed IPv6", `{"host":"[::1]","port":8080}`},
		{"long IPv6", `{"host":"0:0:0:0:0:0:0:1","port":8080}`},
		{"IDN not mapped", `{"host":"bücher.example","port":443}`},
		{"non-canonical IPv4", `{"host":"127.1","port":8080}`},
		{"empty host", `{"host":"","port":443}`},
		{"no port", `{"host":"example.com","port":0}`},
		{"port missing", `{"host":"example.com"}`},
		{"no target", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			if err := os.MkdirAll(filepath.Dir(ws.AuditPath()), 0o700); err != nil {
				t.Fatal(err)
			}
			bad := strings.Replace(line, `{"host":"::1","port":8080}`, tc.target, 1)
			if bad == line {
				t.Fatal("the target was not replaced")
			}
			if err := os.WriteFile(ws.AuditPath(), []byte(line+"\n"+bad+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := audit.Read(ws, 0)
			if !errors.Is(err, audit.ErrMalformedLine) {
				t.Errorf("Read = %v; want ErrMalformedLine", err)
			}
			if len(got) != 1 || !cmp.Equal(got[0], e) {
				t.Errorf("Read returned %d entries; want only the valid line", len(got))
			}
		})
	}
}
