package policy_test

import (
	"context"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
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

// TestDecideTrustRootForbiddenOnNextCall: a managed policy that says
// "allow_trust_flag": false takes effect on the next decision, as every
// managed field does — also in a process (ocfetch mcp, proxy) started
// with --trust-root before the administrator wrote it: the pinned
// workspace's grants stop counting, while a workspace the user's trust
// store trusts (the pinned one included) is trusted as before.
func TestDecideTrustRootForbiddenOnNextCall(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"allowed.example:443"}})
	other := testws.New(t, testws.Spec{Allow: []string{"allowed.example:443"}})
	f := testlayers.New(t, other) // the store trusts other, not ws
	decide := func(store *trust.Store, w workspace.Workspace) policy.Decision {
		l := *f.Layers
		l.Trust = store
		return policy.Decide(context.Background(), policy.Args{Front: policy.FrontFetchTool, Origin: origin(t, "https://allowed.example/"), Workspace: w, Profile: risk.Standard, Layers: &l})
	}
	pinned, err := f.Store.Pin(ws.Root, "--trust-root")
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(pinned, ws); d.Result != policy.Allow || d.TrustedBy != audit.TrustedByTrustRoot {
		t.Fatalf("pinned, no managed policy: %s, TrustedBy %q; want allow by the trust root (%v)", d.Result, d.TrustedBy, d.Refusal)
	}
	pinnedOther, err := f.Store.Pin(other.Root, "--trust-root")
	if err != nil {
		t.Fatal(err)
	}

	f.WriteManaged(t, `{"allow_trust_flag": false}`)
	if d := decide(pinned, ws); d.Result != policy.Deny || d.Refusal == nil || d.Refusal.Code != refusal.WorkspaceUntrusted || d.TrustedBy != "" {
		t.Errorf("pinned, allow_trust_flag false: %s, TrustedBy %q (%v); want deny workspace_untrusted", d.Result, d.TrustedBy, d.Refusal)
	}
	if d := decide(pinnedOther, other); d.Result != policy.Allow || d.TrustedBy != "" {
		t.Errorf("pinned and in the store, allow_trust_flag false: %s, TrustedBy %q (%v); want allow by the store's entry", d.Result, d.TrustedBy, d.Refusal)
	}

	// What reports trust (explain, the MCP server's instructions) asks
	// the store the decision asks: DecidingTrustStore.
	reported := func(store *trust.Store, w workspace.Workspace) bool {
		t.Helper()
		l := *f.Layers
		l.Trust = store
		s, err := l.DecidingTrustStore(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ok, err := s.Trusted(w.Root)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if reported(pinned, ws) || !reported(pinnedOther, other) {
		t.Errorf("allow_trust_flag false: DecidingTrustStore reports ws trusted %v, other %v; want false, true", reported(pinned, ws), reported(pinnedOther, other))
	}

	f.WriteManaged(t, `{"allow_trust_flag": true}`)
	if d := decide(pinned, ws); d.Result != policy.Allow || d.TrustedBy != audit.TrustedByTrustRoot {
		t.Errorf("allow_trust_flag true again: %s, TrustedBy %q (%v); want allow by the trust root", d.Result, d.TrustedBy, d.Refusal)
	}
	if !reported(pinned, ws) {
		t.Error("allow_trust_flag true again: DecidingTrustStore reports ws untrusted; want trusted by the pin")
	}

	// A managed policy that cannot be read refuses every call; what is
	// reported does not count the pin either.
	f.WriteManaged(t, `{"allow_trust_flag": `)
	if d := decide(pinned, ws); d.Result != policy.Deny {
		t.Errorf("invalid managed policy: %s; want deny", d.Result)
	}
	if reported(pinned, ws) {
		t.Error("invalid managed policy: DecidingTrustStore reports ws trusted by the pin")
	}
}
