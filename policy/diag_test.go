package policy_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/risk"
)

// TestDecideLogsLocalDetail: seed 000's diagnostics, restated in package
// diag — L2 admissions and refusals (the front end's "decided" line), L3
// per-decision detail: the allowlist file and the ports it admitted on
// this call, in domain LOCAL. Below L3, or without a logger, nothing.
func TestDecideLogsLocalDetail(t *testing.T) {
	ws := testws.New(t, testws.Spec{LocalPorts: []uint16{3000, 8080}, Allow: []string{"localhost:3000", "localhost:9999"}})
	layers := testlayers.New(t, ws).Layers
	tests := []struct {
		name, url string
		profile   risk.Profile
		want      []string // in the L3 line; none: no LOCAL line
	}{
		{"admitted", "http://localhost:3000/secret?q=1", risk.Permissive,
			[]string{"level=L3", "domain=LOCAL", "target=localhost:3000", `ports="3000, 8080"`, "admitted=3000", "file=" + ws.LocalFetchPath()}},
		{"port not allowed", "http://localhost:9999/secret?q=1", risk.Permissive,
			[]string{"level=L3", "domain=LOCAL", "target=localhost:9999", `ports="3000, 8080"`, "reason=local_port_not_allowed"}},
		{"profile not permissive: the file is not read", "http://localhost:3000/", risk.Standard,
			[]string{"level=L3", "domain=LOCAL", "target=localhost:3000", "reason=local_profile_not_permissive"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{2, 3} {
				var buf bytes.Buffer
				a := policy.Args{Origin: origin(t, tc.url), Workspace: ws, Profile: tc.profile, ProfileExplicit: true, Layers: layers,
					Logger: diag.NewPlain(&buf, n)}
				policy.Decide(context.Background(), a)
				got := buf.String()
				if n < 3 {
					if got != "" {
						t.Errorf("verbosity %d logged %q; want nothing below L3", n, got)
					}
					continue
				}
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("L3 line %q does not hold %q", got, w)
					}
				}
				if strings.Contains(got, "secret") || strings.Count(got, "\n") != 1 {
					t.Errorf("L3 output %q; want one line without path or query", got)
				}
				if tc.profile != risk.Permissive && strings.Contains(got, "ports=") {
					t.Errorf("L3 line %q names ports the decision never read", got)
				}
			}
		})
	}
	// Without a logger, nothing (and no panic).
	policy.Decide(context.Background(), policy.Args{Origin: origin(t, "http://localhost:3000/"), Workspace: ws, Profile: risk.Permissive, ProfileExplicit: true, Layers: layers})
}
