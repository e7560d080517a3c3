package policy_test

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestHintsForModel: every refusal Decide gives whose hint names an
// ocfetch command keeps the person's wording for the CLI and the proxy,
// and under ForModel (the MCP server) asks the user to run the command,
// as the not_approved hint does: a model with a shell is never handed the
// command that widens its own permissions.
func TestHintsForModel(t *testing.T) {
	tests := []struct {
		name    string
		spec    testws.Spec
		url     string
		setup   func(t *testing.T, f *testlayers.Files, ws workspace.Workspace)
		code    refusal.Code
		person  string // the hint as the CLI and the proxy show it (unchanged)
		model   string // the hint under ForModel
		explict bool   // the profile came from a flag
	}{
		{
			name: "local port not allowed", spec: testws.Spec{Profile: "permissive", LocalPorts: []uint16{3000}}, url: "http://127.0.0.1:4000/",
			code:   refusal.LocalPortNotAllowed,
			person: `run "ocfetch local allow 4000" to allow it`,
			model:  "ask the user to run: ocfetch local allow 4000",
		},
		{
			name: "local allowlist missing", spec: testws.Spec{Profile: "permissive"}, url: "http://127.0.0.1:4000/",
			code:   refusal.LocalAllowlistMissing,
			person: `run "ocfetch local allow PORT" to create it`,
			model:  "ask the user to run: ocfetch local allow PORT",
		},
		{
			name: "local allowlist invalid", spec: testws.Spec{Profile: "permissive", RawLocal: "{"}, url: "http://127.0.0.1:4000/",
			code:   refusal.LocalAllowlistInvalid,
			person: `the file must read {"schema_version": 1, "ports": [3000, 8080]}; fix it, or delete it and run "ocfetch local allow PORT"`,
			model:  `the file must read {"schema_version": 1, "ports": [3000, 8080]}; ask the user to run: ocfetch local allow PORT once they have fixed or deleted it`,
		},
		{
			name: "local port missing", spec: testws.Spec{Profile: "permissive", LocalPorts: []uint16{3000}}, url: "http://localhost/",
			code:   refusal.LocalPortMissing,
			person: `write the port, as in http://localhost:3000/, and allow it with "ocfetch local allow 3000"`,
			model:  "write the port, as in http://localhost:3000/; to allow it, ask the user to run: ocfetch local allow 3000",
		},
		{
			name: "workspace deny rule", spec: testws.Spec{Deny: []string{"example.com:443"}}, url: "https://example.com/",
			code:   refusal.DeniedByRule,
			person: "remove the rule with: ocfetch rules remove example.com:443",
			model:  "the user denies this target with a saved rule: do not retry it or ask to lift the rule unless the user brings it up; to lift it, ask the user to run: ocfetch rules remove example.com:443",
		},
		{
			name: "user deny rule", url: "https://example.org/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				f.AddUserRule(t, rules.Rule{Capability: capability.KindNetwork,
					Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: "example.org", Port: 443}, Decision: rules.Deny})
			},
			code:   refusal.DeniedByRule,
			person: "remove the rule with: ocfetch rules remove --user example.org:443",
			model:  "the user denies this target with a saved rule: do not retry it or ask to lift the rule unless the user brings it up; to lift it, ask the user to run: ocfetch rules remove --user example.org:443",
		},
		{
			name: "managed deny rule", url: "https://example.net/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				f.WriteManaged(t, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.net", "port": 443}, "decision": "deny"}]}`)
			},
			code:   refusal.DeniedByRule,
			person: "the administrator's policy decides this; ask your administrator",
			model:  "the administrator's policy denies this target and only an administrator can change it: do not retry it",
		},
		{
			name: "rules file invalid", spec: testws.Spec{RawRules: "{"}, url: "https://example.com/",
			code:   refusal.RulesInvalid,
			person: "fix or remove {rules} (it must be {\"schema_version\": 1, \"rules\": [...]}); `ocfetch rules list` shows whether it loads",
			model:  "ask the user to run: ocfetch rules list once they have fixed or removed {rules} (it must be {\"schema_version\": 1, \"rules\": [...]})",
		},
		{
			name: "trust store invalid", spec: testws.Spec{Allow: []string{"example.com:443"}}, url: "https://example.com/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				if err := os.WriteFile(f.Store.Path(), []byte("{"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			code:   refusal.WorkspaceUntrusted,
			person: "fix or delete {trust} (deleting it untrusts every workspace; `ocfetch trust --root DIR` trusts one again)",
			model:  "ask the user to run: ocfetch trust --root DIR once they have fixed or deleted {trust} (deleting it untrusts every workspace)",
		},
		{
			name: "workspace untrusted", spec: testws.Spec{Allow: []string{"example.com:443"}}, url: "https://example.com/",
			setup: func(t *testing.T, f *testlayers.Files, ws workspace.Workspace) {
				f.Revoke(t, ws)
			},
			code:   refusal.WorkspaceUntrusted,
			person: "if you trust this workspace's files, run `{trustcmd}` (an AI agent should ask the user to run it)",
			model:  "ask the user to run: {trustcmd} if they trust this workspace's files",
		},
		{
			name: "local mode under profile standard", spec: testws.Spec{LocalPorts: []uint16{3000}}, url: "http://127.0.0.1:3000/",
			code:   refusal.LocalProfileNotPermissive,
			person: `set "risk_profile": "permissive" in {settings}, or pass --profile permissive`,
			model:  "ask the user to run: ocfetch profile set permissive (it writes {settings}), or to start ocfetch with --profile permissive",
		},
		{
			name: "managed rules only", url: "https://example.com/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				f.WriteManaged(t, `{"schema_version": 1, "managed_rules_only": true}`)
			},
			code:   refusal.ManagedPolicyForbids,
			person: "ask your administrator to add a rule to {managed}",
			model:  "only an administrator can add a rule to the managed policy: do not retry it; tell the user if they need it",
		},
		{
			name: "managed policy invalid", url: "https://example.com/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				f.WriteManaged(t, `{`)
			},
			code:   refusal.ManagedPolicyInvalid,
			person: "ask your administrator to fix {managed} (owned by an administrator, writable by administrators only, valid JSON as in the README's \"For administrators\"), or to remove it",
			model:  "only an administrator can fix or remove the managed policy, and every call is refused until then: tell the user",
		},
		{
			name: "managed policy caps local mode", spec: testws.Spec{LocalPorts: []uint16{3000}}, url: "http://127.0.0.1:3000/",
			setup: func(t *testing.T, f *testlayers.Files, _ workspace.Workspace) {
				f.WriteManaged(t, `{"schema_version": 1, "max_profile": "standard"}`)
			},
			explict: true,
			code:    refusal.ManagedPolicyForbids,
			person:  "ask your administrator; `ocfetch explain` shows the layers",
			model:   "only an administrator can change the managed policy; to see the layers, ask the user to run: ocfetch explain",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.New(t, tc.spec)
			f := testlayers.New(t, ws)
			if tc.setup != nil {
				tc.setup(t, f, ws)
			}
			profile := risk.Standard
			if tc.spec.Profile != "" || tc.explict {
				profile = risk.Permissive
			}
			expand := func(s string) string {
				return regexp.MustCompile(`\{rules\}|\{trust\}|\{settings\}|\{trustcmd\}|\{managed\}`).ReplaceAllStringFunc(s, func(m string) string {
					switch m {
					case "{managed}":
						return f.Layers.Managed.Path
					case "{trustcmd}":
						return trust.Command(ws.Root)
					case "{rules}":
						return ws.RulesPath()
					case "{settings}":
						return ws.SettingsPath()
					}
					return f.Store.Path()
				})
			}
			for forModel, want := range map[bool]string{false: expand(tc.person), true: expand(tc.model)} {
				d := policy.Decide(context.Background(), policy.Args{
					Origin: origin(t, tc.url), Workspace: ws, Profile: profile, ProfileExplicit: tc.explict,
					Layers: f.Layers, ForModel: forModel,
				})
				if d.Result != policy.Deny || d.Refusal == nil || d.Refusal.Code != tc.code {
					t.Fatalf("ForModel %v: %v; want deny %s", forModel, d, tc.code)
				}
				if d.Refusal.Hint != want {
					t.Errorf("ForModel %v: hint\n %q\nwant\n %q", forModel, d.Refusal.Hint, want)
				}
			}
		})
	}
}
