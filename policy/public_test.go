package policy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

const openWebRules = `{"schema_version": 1, "rules": [
	{"capability": "network", "target": {"schema": "network.target.v1", "host": "*", "port": 443}, "decision": "allow"},
	{"capability": "network", "target": {"schema": "network.target.v1", "host": "tracker.example", "port": 443}, "decision": "deny"},
	{"capability": "network", "target": {"schema": "network.target.v1", "host": "pinned.example", "port": 443}, "decision": "allow"}]}`

// TestDecidePublicHTTPS: the open-web rule admits every public host over
// https (and a proxy tunnel to port 443) without asking; never http, other
// ports, non-public literals or local hosts; a deny rule of any layer
// wins; a more specific allow is reported when there is one; an untrusted
// workspace's rule counts for nothing; the managed policy can forbid it.
func TestDecidePublicHTTPS(t *testing.T) {
	ws := testws.New(t, testws.Spec{RawRules: openWebRules, LocalPorts: []uint16{443}})
	files := testlayers.New(t, ws)
	files.AddUserRule(t, rules.Rule{Capability: "network", Target: rules.RuleTarget{Schema: "network.target.v1", Host: "user-denied.example", Port: 443}, Decision: rules.Deny})
	layers := files.Layers
	const star = "allow *:443"
	tests := []struct {
		name    string
		front   policy.Front
		profile risk.Profile
		url     string
		result  policy.Result
		code    refusal.Code
		rule    string
	}{
		{"public name", policy.FrontFetchTool, risk.Standard, "https://docs.example.org/x", policy.Allow, "", star},
		{"public literal", policy.FrontFetchTool, risk.Standard, "https://93.184.216.34/", policy.Allow, "", star},
		{"strict: a saved rule", policy.FrontFetchTool, risk.Strict, "https://docs.example.org/", policy.Allow, "", star},
		{"proxy tunnel", policy.FrontProxy, risk.Standard, "docs.example.org:443", policy.Allow, "", star},
		{"specific allow reported", policy.FrontFetchTool, risk.Standard, "https://pinned.example/", policy.Allow, "", "allow pinned.example:443"},
		{"workspace deny wins", policy.FrontFetchTool, risk.Standard, "https://tracker.example/", policy.Deny, refusal.DeniedByRule, "deny tracker.example:443"},
		{"user deny wins", policy.FrontFetchTool, risk.Standard, "https://user-denied.example/", policy.Deny, refusal.DeniedByRule, "deny user-denied.example:443"},
		{"http", policy.FrontFetchTool, risk.Standard, "http://docs.example.org/", policy.Deny, refusal.HTTPSRequired, ""},
		{"proxy http on 443", policy.FrontProxy, risk.Standard, "http://docs.example.org:443/", policy.Ask, refusal.NotApproved, ""},
		{"other port", policy.FrontFetchTool, risk.Standard, "https://docs.example.org:8443/", policy.Ask, refusal.NotApproved, ""},
		{"private literal", policy.FrontFetchTool, risk.Standard, "https://10.0.0.1/", policy.Deny, refusal.AddressNotPublic, ""},
		{"metadata literal", policy.FrontFetchTool, risk.Standard, "https://169.254.169.254/", policy.Deny, refusal.AddressNotPublic, ""},
		{"loopback 127.0.0.2", policy.FrontFetchTool, risk.Standard, "https://127.0.0.2/", policy.Deny, refusal.AddressNotPublic, ""},
		{"localhost outside local mode", policy.FrontFetchTool, risk.Standard, "https://localhost/", policy.Deny, refusal.LocalProfileNotPermissive, ""},
		{"localhost in local mode: asked", policy.FrontFetchTool, risk.Permissive, "https://localhost:443/", policy.Ask, refusal.NotApproved, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.url
			if !strings.Contains(raw, "://") {
				raw = "https://" + raw // a tunnel: the origin without a scheme
			}
			o := origin(t, raw)
			if tc.front == policy.FrontProxy && !strings.Contains(tc.url, "://") {
				o.Scheme = ""
			}
			d := policy.Decide(context.Background(), policy.Args{Front: tc.front, Origin: o, Workspace: ws, Profile: tc.profile, ProfileExplicit: true, Layers: layers})
			if d.Result != tc.result || d.Rule != tc.rule {
				t.Fatalf("Decide(%s) = %v; want %v by rule %q", tc.url, d, tc.result, tc.rule)
			}
			if tc.code != "" && (d.Refusal == nil || d.Refusal.Code != tc.code) {
				t.Errorf("refusal %v; want %s", d.Refusal, tc.code)
			}
			if d.Result == policy.Allow && (d.Layer != policy.LayerWorkspace || d.File != ws.RulesPath() || d.DecidedBy != audit.ByRule) {
				t.Errorf("allowed by %v in %s (%s); want the workspace's rules.json, by rule", d.Layer, d.File, d.DecidedBy)
			}
		})
	}

	// An untrusted workspace's open-web rule counts for nothing.
	untrusted := testws.New(t, testws.Spec{RawRules: openWebRules})
	d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://docs.example.org/"), Workspace: untrusted, Layers: testlayers.New(t).Layers})
	if d.Result != policy.Deny || d.Refusal.Code != refusal.WorkspaceUntrusted || d.Rule != star {
		t.Errorf("untrusted workspace: %v; want workspace_untrusted naming %s", d, star)
	}

	// allow_public_https: false: the workspace's and the user's open-web
	// rules are ignored (and the hint says so); the managed policy's own
	// counts.
	files.WriteManaged(t, `{"allow_public_https": false}`)
	d = policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://docs.example.org/"), Workspace: ws, Profile: risk.Standard, Layers: layers})
	if d.Result != policy.Ask || !strings.Contains(d.Refusal.Message, "allow_public_https: false") || !strings.Contains(d.Note, ws.RulesPath()) {
		t.Errorf("managed forbids it: %v (message %q, note %q); want ask, naming allow_public_https and the rules file", d, d.Refusal.Message, d.Note)
	}
	user := testws.New(t, testws.Spec{})
	userFiles := testlayers.New(t, user)
	userFiles.AddUserRule(t, rules.PublicHTTPSRule())
	userFiles.WriteManaged(t, `{"allow_public_https": false, "max_profile": "strict"}`)
	d = policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://docs.example.org/"), Workspace: user, Profile: risk.Standard, Layers: userFiles.Layers})
	if d.Result != policy.Deny || d.Refusal.Code != refusal.NotApproved {
		t.Errorf("managed forbids the user's rule: %v; want not_approved", d)
	}
	files.WriteManaged(t, `{"allow_public_https": false, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "*", "port": 443}, "decision": "allow"}]}`)
	d = policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://docs.example.org/"), Workspace: ws, Profile: risk.Standard, Layers: layers})
	if d.Result != policy.Allow || d.Layer != policy.LayerManaged || d.Rule != star {
		t.Errorf("the managed policy's own open-web rule: %v; want allow by it", d)
	}
	d = policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://tracker.example/"), Workspace: ws, Profile: risk.Standard, Layers: layers})
	if d.Result != policy.Deny || d.Refusal.Code != refusal.DeniedByRule {
		t.Errorf("a workspace deny under the managed open-web rule: %v; want denied_by_rule", d)
	}
}
