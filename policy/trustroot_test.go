package policy_test

import (
	"context"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/risk"
)

// TestDecideTrustedByTrustRoot: a workspace grant that counts because the
// trust store pins the workspace (--trust-root) is marked in the decision
// (audit trusted_by); one the store's entry trusts, or a decision no
// workspace grant took part in, is not.
func TestDecideTrustedByTrustRoot(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"allowed.example:443"}})
	other := testws.New(t, testws.Spec{Allow: []string{"allowed.example:443"}})
	f := testlayers.New(t, other) // the store trusts other, not ws
	pinned, err := f.Store.Pin(ws.Root, "--trust-root")
	if err != nil {
		t.Fatal(err)
	}
	withPin := *f.Layers
	withPin.Trust = pinned
	for _, tc := range []struct {
		name   string
		layers *policy.Layers
		root   string
		url    string
		result policy.Result
		by     string
	}{
		{"pinned workspace's allow rule", &withPin, ws.Root, "https://allowed.example/", policy.Allow, audit.TrustedByTrustRoot},
		{"no grant needed", &withPin, ws.Root, "https://elsewhere.example/", policy.Ask, ""},
		{"the store's entry", &withPin, other.Root, "https://allowed.example/", policy.Allow, ""},
		{"without the pin", f.Layers, ws.Root, "https://allowed.example/", policy.Deny, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := ws
			if tc.root == other.Root {
				w = other
			}
			d := policy.Decide(context.Background(), policy.Args{Front: policy.FrontFetchTool, Origin: origin(t, tc.url), Workspace: w, Profile: risk.Standard, Layers: tc.layers})
			if d.Result != tc.result || d.TrustedBy != tc.by {
				t.Errorf("Decide = %s, TrustedBy %q; want %s, %q (%v)", d.Result, d.TrustedBy, tc.result, tc.by, d.Refusal)
			}
		})
	}
}
