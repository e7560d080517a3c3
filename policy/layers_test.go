package policy_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
)

func rule(d rules.Decision, host string, port uint16) rules.Rule {
	return rules.Rule{Capability: capability.KindNetwork, Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: host, Port: port}, Decision: d}
}

// The malicious clone, at the decision step: a workspace that ships every
// grant file is refused workspace_untrusted, naming the workspace and the
// file whose grant was ignored; its deny rule and its strict still apply;
// trusting it lets the same calls through; revoking closes them again.
func TestDecideUntrustedWorkspace(t *testing.T) {
	ws := testws.New(t, testws.Spec{
		Profile:    "permissive",
		LocalPorts: []uint16{6379},
		Allow:      []string{"127.0.0.1:6379", "public.example:443"},
		Deny:       []string{"tracker.example:443", "127.0.0.1:6380"},
		RawLocal:   `{"schema_version": 1, "ports": [6379, 6380]}`,
	})
	l := testlayers.New(t) // ws is not trusted
	ctx := context.Background()
	decide := func(raw string, front policy.Front, profile risk.Profile, explicit bool) policy.Decision {
		return policy.Decide(ctx, policy.Args{Front: front, Origin: origin(t, raw), Workspace: ws, Profile: profile, ProfileExplicit: explicit, Layers: l.Layers})
	}
	for _, tc := range []struct {
		name     string
		url      string
		front    policy.Front
		profile  risk.Profile
		explicit bool
		file     string
		grant    string
	}{
		{"local port from the clone", "http://127.0.0.1:6379/", policy.FrontFetchTool, risk.Permissive, false, ws.LocalFetchPath(), `"port 6379"`},
		{"local port, proxy", "http://127.0.0.1:6379/", policy.FrontProxy, risk.Permissive, false, ws.LocalFetchPath(), `"port 6379"`},
		{"local port, --profile permissive", "http://127.0.0.1:6379/", policy.FrontFetchTool, risk.Permissive, true, ws.LocalFetchPath(), `"port 6379"`},
		{"allow rule from the clone", "https://public.example/", policy.FrontFetchTool, risk.Permissive, false, ws.RulesPath(), `"allow public.example:443"`},
		{"allow rule, proxy", "https://public.example/", policy.FrontProxy, risk.Standard, false, ws.RulesPath(), `"allow public.example:443"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(tc.url, tc.front, tc.profile, tc.explicit)
			if d.Result != policy.Deny || d.Refusal.Code != refusal.WorkspaceUntrusted || d.Layer != policy.LayerWorkspace || d.File != tc.file || d.LoopbackPort != 0 {
				t.Fatalf("Decide = %v; want deny workspace_untrusted by the workspace layer naming %s", d, tc.file)
			}
			for _, want := range []string{ws.Root, tc.file, tc.grant} {
				if !strings.Contains(d.Refusal.Message, want) {
					t.Errorf("message %q does not name %s", d.Refusal.Message, want)
				}
			}
			if want := "ocfetch trust --root " + ws.Root; !strings.Contains(d.Refusal.Hint, want) {
				t.Errorf("hint %q; want it to hold %q", d.Refusal.Hint, want)
			}
		})
	}
	// Restrictions apply untrusted: the shipped deny rule, and a shipped strict.
	if d := decide("https://tracker.example/", policy.FrontFetchTool, risk.Standard, false); d.Result != policy.Deny || d.Refusal.Code != refusal.DeniedByRule {
		t.Errorf("shipped deny rule, untrusted: %v; want denied_by_rule", d)
	}
	if d := decide("https://new.example/", policy.FrontFetchTool, risk.Strict, false); d.Result != policy.Deny || d.Refusal.Code != refusal.NotApproved {
		t.Errorf("shipped strict, untrusted: %v; want deny not_approved", d)
	}
	// A denied local target is told the deny, not the trust.
	if d := decide("http://127.0.0.1:6380/", policy.FrontFetchTool, risk.Permissive, false); d.Result != policy.Deny || d.Refusal.Code != refusal.DeniedByRule {
		t.Errorf("shipped deny on a local target, untrusted: %v; want denied_by_rule", d)
	}
	// A target no grant touches is asked as before.
	if d := decide("https://new.example/", policy.FrontFetchTool, risk.Permissive, false); d.Result != policy.Ask {
		t.Errorf("uncovered target, untrusted: %v; want ask", d)
	}

	l.Trust(t, ws)
	if d := decide("http://127.0.0.1:6379/", policy.FrontProxy, risk.Permissive, false); d.Result != policy.Allow || d.LoopbackPort != 6379 {
		t.Errorf("after trust: %v; want allow in local mode", d)
	}
	if d := decide("https://public.example/", policy.FrontFetchTool, risk.Standard, false); d.Result != policy.Allow || d.Layer != policy.LayerWorkspace {
		t.Errorf("after trust: %v; want allow by the workspace rule", d)
	}
	if d := decide("https://tracker.example/", policy.FrontFetchTool, risk.Standard, false); d.Result != policy.Deny {
		t.Errorf("after trust, the deny rule: %v; want deny", d)
	}
	l.Revoke(t, ws)
	if d := decide("https://public.example/", policy.FrontFetchTool, risk.Standard, false); d.Refusal == nil || d.Refusal.Code != refusal.WorkspaceUntrusted {
		t.Errorf("after revoke: %v; want workspace_untrusted", d)
	}

	// A malformed trust store trusts nothing and names itself.
	l.Trust(t, ws)
	if err := os.WriteFile(l.Store.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := decide("https://public.example/", policy.FrontFetchTool, risk.Standard, false); d.Refusal == nil || d.Refusal.Code != refusal.WorkspaceUntrusted || d.File != l.Store.Path() {
		t.Errorf("malformed store: %v; want workspace_untrusted naming %s", d, l.Store.Path())
	}
}

// A trusted workspace deleted and cloned again at its path — `rm -rf proj
// && git clone evil proj`, which on ext4 usually reuses the inode — is
// refused at the decision step every time, with the refusal saying the
// directory was replaced, whether the store recorded the birth time or
// (where there is none) the marker.
func TestDecideReplacedWorkspace(t *testing.T) {
	spec := testws.Spec{Profile: "permissive", LocalPorts: []uint16{6379}, Allow: []string{"127.0.0.1:6379", "public.example:443"}}
	for _, noBirth := range []bool{false, true} {
		t.Run(map[bool]string{false: "birth time", true: "marker"}[noBirth], func(t *testing.T) {
			ws := testws.New(t, spec)
			l := testlayers.New(t)
			store, err := trust.Open(&trust.Options{Dir: l.ConfigDir, IgnoreBirthTime: noBirth})
			if err != nil {
				t.Fatal(err)
			}
			layers := *l.Layers
			layers.Trust = store
			decide := func(raw string) policy.Decision {
				return policy.Decide(context.Background(), policy.Args{Front: policy.FrontFetchTool, Origin: origin(t, raw), Workspace: ws, Profile: risk.Permissive, Layers: &layers})
			}
			if err := store.Trust(context.Background(), ws.Root, trust.Details{How: "test"}); err != nil {
				t.Fatal(err)
			}
			if d := decide("http://127.0.0.1:6379/"); d.Result != policy.Allow {
				t.Fatalf("trusted: %v; want allow", d)
			}
			before, err := os.Stat(ws.Root)
			if err != nil {
				t.Fatal(err)
			}
			reused := 0
			for i := range 50 {
				if err := os.RemoveAll(ws.Root); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(ws.Root, 0o755); err != nil {
					t.Fatal(err)
				}
				testws.Write(t, ws, spec)
				now, err := os.Stat(ws.Root)
				if err != nil {
					t.Fatal(err)
				}
				if os.SameFile(before, now) {
					reused++
				}
				before = now
				for _, tc := range []struct{ url, file string }{
					{"http://127.0.0.1:6379/", ws.LocalFetchPath()},
					{"https://public.example/", ws.RulesPath()},
				} {
					d := decide(tc.url)
					if d.Result != policy.Deny || d.Refusal.Code != refusal.WorkspaceUntrusted || d.File != tc.file {
						t.Fatalf("re-creation %d, %s: %v; want deny workspace_untrusted naming %s", i+1, tc.url, d, tc.file)
					}
					if want := "workspace " + ws.Root + " was replaced since it was trusted"; !strings.Contains(d.Refusal.Message, want) {
						t.Fatalf("re-creation %d: message %q; want it to hold %q", i+1, d.Refusal.Message, want)
					}
					if want := "if you trust the new directory's files, run `ocfetch trust --root " + ws.Root + "`"; !strings.Contains(d.Refusal.Hint, want) {
						t.Fatalf("re-creation %d: hint %q; want it to hold %q", i+1, d.Refusal.Hint, want)
					}
				}
			}
			t.Logf("%d of 50 re-created workspaces reused the inode of the one before", reused)
		})
	}
}

// An upstream_proxy from settings.json is a grant too.
func TestDecideUntrustedUpstream(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"public.example:443"}})
	l := testlayers.New(t)
	l.AddUserRule(t, rule(rules.Allow, "public.example", 443))
	a := policy.Args{Origin: origin(t, "https://public.example/"), Workspace: ws, Profile: risk.Standard, Layers: l.Layers, WorkspaceUpstream: "http://proxy.corp.example:3128"}
	d := policy.Decide(context.Background(), a)
	if d.Result != policy.Deny || d.Refusal.Code != refusal.WorkspaceUntrusted || d.File != ws.SettingsPath() || !strings.Contains(d.Refusal.Message, "upstream_proxy") {
		t.Fatalf("untrusted upstream: %v; want workspace_untrusted naming settings.json", d)
	}
	l.Trust(t, ws)
	if d := policy.Decide(context.Background(), a); d.Result != policy.Allow {
		t.Errorf("trusted upstream: %v; want allow", d)
	}
}

// User rules hold in every workspace, trusted or not; their deny wins
// over a trusted workspace's allow.
func TestDecideUserLayer(t *testing.T) {
	untrusted := testws.New(t, testws.Spec{})
	trusted := testws.New(t, testws.Spec{Allow: []string{"both.example:443"}})
	l := testlayers.New(t, trusted)
	l.AddUserRule(t, rule(rules.Allow, "user.example", 443))
	l.AddUserRule(t, rule(rules.Deny, "both.example", 443))
	userFile := l.Layers.User.Path()
	for _, ws := range []struct {
		name string
		root string
	}{{"untrusted", untrusted.Root}, {"trusted", trusted.Root}} {
		w := untrusted
		if ws.root == trusted.Root {
			w = trusted
		}
		d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://user.example/"), Workspace: w, Profile: risk.Standard, Layers: l.Layers})
		if d.Result != policy.Allow || d.Layer != policy.LayerUser || d.File != userFile {
			t.Errorf("%s workspace: %v; want allow by the user layer in %s", ws.name, d, userFile)
		}
	}
	d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://both.example/"), Workspace: trusted, Profile: risk.Standard, Layers: l.Layers})
	if d.Result != policy.Deny || d.Layer != policy.LayerUser || d.File != userFile || !strings.Contains(d.Refusal.Message, "(the user layer)") ||
		d.Refusal.Hint != "remove the rule with: ocfetch rules remove --user both.example:443" {
		t.Errorf("user deny over a trusted workspace allow: %v (hint %q); want deny by the user layer", d, d.Refusal.Hint)
	}
}

// The managed layer: its deny beats everything, its switches hold whatever
// the workspace, the flags or the user say, and a malformed file refuses
// every call. Every refusal names the managed layer and its file.
func TestDecideManagedLayer(t *testing.T) {
	ws := testws.New(t, testws.Spec{
		LocalPorts: []uint16{3000},
		Allow:      []string{"denied.example:443", "ws.example:443", "localhost:3000"},
	})
	l := testlayers.New(t, ws)
	l.AddUserRule(t, rule(rules.Allow, "user.example", 443))
	ctx := context.Background()
	decide := func(raw string, profile risk.Profile) policy.Decision {
		return policy.Decide(ctx, policy.Args{Origin: origin(t, raw), Workspace: ws, Profile: profile, ProfileExplicit: true, Layers: l.Layers})
	}
	denyDoc := `{"schema_version": 1, "rules": [
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "denied.example", "port": 443}, "decision": "deny"},
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "managed.example", "port": 443}, "decision": "allow"}]`
	for _, tc := range []struct {
		name    string
		doc     string
		url     string
		profile risk.Profile
		result  policy.Result
		code    refusal.Code
		layer   policy.Layer
	}{
		{"no file changes nothing", "", "https://ws.example/", risk.Standard, policy.Allow, "", policy.LayerWorkspace},
		{"managed deny beats a trusted workspace allow", denyDoc + `}`, "https://denied.example/", risk.Standard, policy.Deny, refusal.DeniedByRule, policy.LayerManaged},
		{"managed allow", denyDoc + `}`, "https://managed.example/", risk.Strict, policy.Allow, "", policy.LayerManaged},
		{"managed_rules_only refuses a workspace allow", denyDoc + `, "managed_rules_only": true}`, "https://ws.example/", risk.Standard, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"managed_rules_only refuses a user allow", denyDoc + `, "managed_rules_only": true}`, "https://user.example/", risk.Standard, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"managed_rules_only asks nobody", denyDoc + `, "managed_rules_only": true}`, "https://new.example/", risk.Standard, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"managed_rules_only admits its own", denyDoc + `, "managed_rules_only": true}`, "https://managed.example/", risk.Standard, policy.Allow, "", policy.LayerManaged},
		{"max_profile standard: no local mode, even --profile permissive", `{"max_profile": "standard"}`, "http://localhost:3000/", risk.Permissive, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"max_profile standard: local mode off whatever the profile", `{"max_profile": "standard"}`, "http://localhost:3000/", risk.Standard, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"a present file defaults to max_profile standard", `{}`, "http://localhost:3000/", risk.Permissive, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"max_profile permissive allows local mode", `{"max_profile": "permissive"}`, "http://localhost:3000/", risk.Permissive, policy.Allow, "", policy.LayerWorkspace},
		{"max_profile strict: saved rules only", `{"max_profile": "strict"}`, "https://new.example/", risk.Standard, policy.Deny, refusal.NotApproved, policy.LayerManaged},
		{"allow_once false: nobody is asked", `{"allow_once": false}`, "https://new.example/", risk.Standard, policy.Deny, refusal.ManagedPolicyForbids, policy.LayerManaged},
		{"allow_once false: saved rules still admit", `{"allow_once": false}`, "https://ws.example/", risk.Standard, policy.Allow, "", policy.LayerWorkspace},
		{"malformed file refuses an allowed call", `{"max_profile": "lenient"}`, "https://ws.example/", risk.Standard, policy.Deny, refusal.ManagedPolicyInvalid, policy.LayerManaged},
		{"malformed file refuses a local call", `{`, "http://localhost:3000/", risk.Permissive, policy.Deny, refusal.ManagedPolicyInvalid, policy.LayerManaged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(l.ManagedPath)
			if tc.doc != "" {
				l.WriteManaged(t, tc.doc)
			}
			d := decide(tc.url, tc.profile)
			if d.Result != tc.result || d.Layer != tc.layer {
				t.Fatalf("Decide(%s) = %v; want %v by the %v layer", tc.url, d, tc.result, tc.layer)
			}
			if tc.code == "" {
				return
			}
			if d.Refusal == nil || d.Refusal.Code != tc.code {
				t.Fatalf("refusal %v; want %s", d.Refusal, tc.code)
			}
			if tc.layer == policy.LayerManaged && (d.File != l.ManagedPath || !strings.Contains(d.Refusal.Message, l.ManagedPath)) {
				t.Errorf("file %q, message %q; want both to name %s", d.File, d.Refusal.Message, l.ManagedPath)
			}
		})
	}
}
