package policy_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func origin(t testing.TB, raw string) capability.Origin {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, err := capability.OriginOf(u)
	if err != nil {
		t.Fatalf("OriginOf(%q): %v", raw, err)
	}
	return o
}

// TestDecide is the verdict matrix: every kind of verdict, with the layer,
// rule, file and audit vocabulary that decided it, for both fronts.
func TestDecide(t *testing.T) {
	ws := testws.New(t, testws.Spec{
		LocalPorts: []uint16{3000},
		Allow:      []string{"allowed.example:443", "plain.example:80", "localhost:3000", "[::1]:3000", "*.wild.example:443"},
		Deny:       []string{"denied.example:443", "[2606:4700::1111]:443", "x.wild.example:443"},
	})
	layers := testlayers.New(t, ws).Layers
	tests := []struct {
		name    string
		front   policy.Front
		profile risk.Profile
		url     string
		result  policy.Result
		layer   policy.Layer
		by      audit.DecidedBy
		code    refusal.Code
		rule    string
		file    string
		port    uint16
	}{
		{"allow rule", policy.FrontFetchTool, risk.Standard, "https://allowed.example/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow allowed.example:443", ws.RulesPath(), 0},
		{"wildcard allow", policy.FrontFetchTool, risk.Standard, "https://a.wild.example/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow *.wild.example:443", ws.RulesPath(), 0},
		{"deny wins over wildcard allow", policy.FrontFetchTool, risk.Standard, "https://x.wild.example/", policy.Deny, policy.LayerWorkspace, audit.ByRule, refusal.DeniedByRule, "deny x.wild.example:443", ws.RulesPath(), 0},
		{"deny rule", policy.FrontFetchTool, risk.Standard, "https://denied.example/", policy.Deny, policy.LayerWorkspace, audit.ByRule, refusal.DeniedByRule, "deny denied.example:443", ws.RulesPath(), 0},
		{"deny IPv6 rule", policy.FrontProxy, risk.Standard, "https://[2606:4700::1111]/", policy.Deny, policy.LayerWorkspace, audit.ByRule, refusal.DeniedByRule, "deny [2606:4700::1111]:443", ws.RulesPath(), 0},
		{"uncovered asks", policy.FrontFetchTool, risk.Standard, "https://new.example/", policy.Ask, policy.LayerBuiltin, "", refusal.NotApproved, "", "", 0},
		{"uncovered, strict", policy.FrontFetchTool, risk.Strict, "https://new.example/", policy.Deny, policy.LayerBuiltin, audit.ByProfile, refusal.NotApproved, "", "", 0},
		{"strict, allow rule", policy.FrontFetchTool, risk.Strict, "https://allowed.example/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow allowed.example:443", ws.RulesPath(), 0},
		{"fetch tool: http refused", policy.FrontFetchTool, risk.Standard, "http://plain.example/", policy.Deny, policy.LayerBuiltin, audit.ByPolicy, refusal.HTTPSRequired, "", "", 0},
		{"proxy: http on a rule", policy.FrontProxy, risk.Standard, "http://plain.example/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow plain.example:80", ws.RulesPath(), 0},
		{"private literal", policy.FrontFetchTool, risk.Standard, "https://10.0.0.1/", policy.Deny, policy.LayerBuiltin, audit.ByPolicy, refusal.AddressNotPublic, "", "", 0},
		{"metadata over http", policy.FrontProxy, risk.Permissive, "http://169.254.169.254/", policy.Deny, policy.LayerBuiltin, audit.ByPolicy, refusal.AddressNotPublic, "", "", 0},
		{"127.0.0.2 is not local", policy.FrontFetchTool, risk.Permissive, "http://127.0.0.2:3000/", policy.Deny, policy.LayerBuiltin, audit.ByPolicy, refusal.AddressNotPublic, "", "", 0},
		{"mapped v4 is not local", policy.FrontFetchTool, risk.Permissive, "http://[::ffff:127.0.0.1]:3000/", policy.Deny, policy.LayerBuiltin, audit.ByPolicy, refusal.AddressNotPublic, "", "", 0},
		{"local admitted and allowed", policy.FrontFetchTool, risk.Permissive, "http://localhost:3000/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow localhost:3000", ws.RulesPath(), 3000},
		{"local admitted v6", policy.FrontProxy, risk.Permissive, "http://[::1]:3000/", policy.Allow, policy.LayerWorkspace, audit.ByRule, "", "allow [::1]:3000", ws.RulesPath(), 3000},
		{"local admitted, no rule: ask", policy.FrontFetchTool, risk.Permissive, "https://127.0.0.1:3000/", policy.Ask, policy.LayerBuiltin, "", refusal.NotApproved, "", "", 3000},
		{"local, not permissive", policy.FrontFetchTool, risk.Standard, "http://localhost:3000/", policy.Deny, policy.LayerWorkspace, audit.ByPolicy, refusal.LocalProfileNotPermissive, "", "", 0}, // the profile is the caller's (no ProfileFile): no file
		{"local, port not listed", policy.FrontFetchTool, risk.Permissive, "http://localhost:8080/", policy.Deny, policy.LayerWorkspace, audit.ByPolicy, refusal.LocalPortNotAllowed, "", ws.LocalFetchPath(), 0},
		{"local, no port", policy.FrontProxy, risk.Permissive, "http://localhost/", policy.Deny, policy.LayerWorkspace, audit.ByPolicy, refusal.LocalPortMissing, "", ws.LocalFetchPath(), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := origin(t, tc.url)
			d := policy.Decide(context.Background(), policy.Args{Front: tc.front, Origin: o, Workspace: ws, Profile: tc.profile, Layers: layers})
			if d.Result != tc.result || d.Layer != tc.layer || d.DecidedBy != tc.by || d.Rule != tc.rule || d.File != tc.file || d.LoopbackPort != tc.port {
				t.Fatalf("Decide(%s) = %+v\nwant result %v layer %v by %q rule %q file %q port %d", tc.url, d, tc.result, tc.layer, tc.by, tc.rule, tc.file, tc.port)
			}
			if d.Target != o.Target {
				t.Errorf("decided on %v; want %v", d.Target, o.Target)
			}
			switch {
			case tc.code == "" && d.Refusal != nil:
				t.Errorf("refusal %v; want none", d.Refusal)
			case tc.code != "" && (d.Refusal == nil || d.Refusal.Code != tc.code):
				t.Errorf("refusal %v; want %s", d.Refusal, tc.code)
			}
			if s := d.String(); !strings.HasPrefix(s, tc.result.String()+" ") || strings.Contains(s, "?") {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

// TestDecideReadsFilesEveryCall is seed 000's "no caching": an edit of
// local_fetch.json or rules.json takes effect on the next decision.
func TestDecideReadsFilesEveryCall(t *testing.T) {
	ws := testws.New(t, testws.Spec{LocalPorts: []uint16{3000}, Allow: []string{"localhost:3000"}})
	a := policy.Args{Origin: origin(t, "http://localhost:3000/"), Workspace: ws, Profile: risk.Permissive, Layers: testlayers.New(t, ws).Layers}
	if d := policy.Decide(context.Background(), a); d.Result != policy.Allow {
		t.Fatalf("before the edit: %v; want allow", d)
	}
	testws.Write(t, ws, testws.Spec{LocalPorts: []uint16{4000}})
	if d := policy.Decide(context.Background(), a); d.Result != policy.Deny || d.Refusal.Code != refusal.LocalPortNotAllowed {
		t.Fatalf("after the allowlist edit: %v; want deny local_port_not_allowed", d)
	}
	testws.Write(t, ws, testws.Spec{LocalPorts: []uint16{3000}, Deny: []string{"localhost:3000"}})
	if d := policy.Decide(context.Background(), a); d.Result != policy.Deny || d.Refusal.Code != refusal.DeniedByRule {
		t.Fatalf("after the rules edit: %v; want deny denied_by_rule", d)
	}
	testws.Write(t, ws, testws.Spec{RawRules: "{"})
	if d := policy.Decide(context.Background(), a); d.Result != policy.Deny || d.Refusal.Code != refusal.RulesInvalid || d.File != ws.RulesPath() {
		t.Fatalf("with a malformed rules.json: %v; want deny rules_invalid naming the file", d)
	}
}

// TestHintsQuoteTheirArgument: a hint's command, pasted into a shell, runs
// nothing but ocfetch, and the model-facing hint asks the user to run it.
func TestHintsQuoteTheirArgument(t *testing.T) {
	ws := testws.New(t, testws.Spec{Deny: []string{"[2606:4700::1111]:443"}})
	layers := testlayers.New(t).Layers
	d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://[2606:4700::1111]/"), Workspace: ws, Layers: layers})
	if want := "remove the rule with: ocfetch rules remove '[2606:4700::1111]:443'"; d.Refusal.Hint != want {
		t.Errorf("deny hint %q; want %q", d.Refusal.Hint, want)
	}
	tgt := capability.MustTarget("new.example", 8443)
	for forModel, want := range map[bool]string{
		false: "allow it with: ocfetch rules allow new.example:8443",
		true:  "ask the user to run: ocfetch rules allow new.example:8443",
	} {
		if got := policy.AllowHint(tgt, forModel); got != want {
			t.Errorf("AllowHint(forModel=%v) = %q; want %q", forModel, got, want)
		}
	}
	d = policy.Decide(context.Background(), policy.Args{Origin: origin(t, "https://new.example:8443/"), Workspace: ws, ForModel: true, Layers: layers})
	if d.Result != policy.Ask || !strings.HasPrefix(d.Refusal.Hint, "ask the user to run: ") {
		t.Errorf("model-facing ask: %v hint %q", d, d.Refusal.Hint)
	}
	if got := policy.AllowCommand(capability.MustTarget("[::1]", 1)); !strings.HasPrefix(got, "ocfetch rules allow '") {
		t.Errorf("AllowCommand of an odd host = %q; want it quoted", got)
	}
}

func ExampleDecide() {
	dir, _ := os.MkdirTemp("", "policy-example")
	defer os.RemoveAll(dir)
	ws := workspace.Workspace{Root: dir}
	_ = ws.EnsureDir()
	// The layers around the workspace, in the example's own directory: no
	// managed policy, no user rules, an empty trust store.
	store, _ := trust.Open(&trust.Options{Dir: dir + "/config"})
	layers := &policy.Layers{
		Managed: &managed.Options{Path: dir + "/etc/policy.json"},
		Trust:   store,
		User:    &rules.Location{Dir: dir + "/config", Name: "rules.json"},
	}
	_ = rules.Add(context.Background(), ws, rules.Rule{
		Capability: capability.KindNetwork,
		Target:     rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: "denied.example", Port: 443},
		Decision:   rules.Deny,
	})
	for _, raw := range []string{"https://denied.example/", "http://example.com/", "https://10.0.0.1/"} {
		u, _ := url.Parse(raw)
		o, _ := capability.OriginOf(u)
		d := policy.Decide(context.Background(), policy.Args{Origin: o, Workspace: ws, Layers: layers})
		fmt.Println(d.Result, d.Layer, d.Refusal.Code)
	}
	// Output:
	// deny workspace denied_by_rule
	// deny builtin https_required
	// deny builtin address_not_public
}

// An IPv4-mapped IPv6 literal ([::ffff:a.b.c.d]) is public when a.b.c.d is,
// and the dialer connects to a.b.c.d: a deny rule written for the IPv4
// address, in any layer, must refuse the mapped spelling too — whatever
// allows it (a trusted workspace's rule for that spelling, the user's
// open-web rule) and for either front.
func TestDecideDenyCoversIPv4MappedSpelling(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"[::ffff:93.184.215.14]:443", "[::ffff:93.184.215.15]:443"}})
	l := testlayers.New(t, ws)
	l.AddUserRule(t, rule(rules.Allow, rules.PublicHTTPSHost, 443))
	l.AddUserRule(t, rule(rules.Deny, "93.184.215.15", 443))
	l.WriteManaged(t, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "93.184.215.14", "port": 443}, "decision": "deny"}]}`)
	for _, tc := range []struct {
		url   string
		layer policy.Layer
		file  string
		rule  string
	}{
		{"https://[::ffff:93.184.215.14]/", policy.LayerManaged, l.ManagedPath, "deny 93.184.215.14:443"},
		{"https://[::ffff:5db8:d70e]:443/", policy.LayerManaged, l.ManagedPath, "deny 93.184.215.14:443"},
		{"https://[::ffff:93.184.215.15]/", policy.LayerUser, filepath.Join(l.ConfigDir, workspace.RulesFile), "deny 93.184.215.15:443"},
	} {
		for _, front := range []policy.Front{policy.FrontFetchTool, policy.FrontProxy} {
			o := origin(t, tc.url)
			if front == policy.FrontProxy {
				o = capability.Network(o.Target).Origin() // a CONNECT tunnel
			}
			d := policy.Decide(context.Background(), policy.Args{Front: front, Origin: o, Workspace: ws, Profile: risk.Standard, Layers: l.Layers})
			if d.Result != policy.Deny || d.Refusal == nil || d.Refusal.Code != refusal.DeniedByRule || d.Layer != tc.layer || d.File != tc.file || d.Rule != tc.rule {
				t.Errorf("%s (%v): %v; want denied_by_rule by the %v rule %q in %s", tc.url, front, d, tc.layer, tc.rule, tc.file)
			}
		}
	}
}

// max_profile strict means saved rules only, whatever profile the caller
// hands Decide: one it did not resolve (the zero Profile of an embedder's
// scope.Scope) or a name that is not a profile is capped too, not asked.
func TestDecideMaxProfileStrictCapsAnUnresolvedProfile(t *testing.T) {
	ws := testws.New(t, testws.Spec{})
	l := testlayers.New(t, ws)
	l.WriteManaged(t, `{"max_profile": "strict"}`)
	for _, prof := range []risk.Profile{"", "Standard", risk.Standard} {
		for _, front := range []policy.Front{policy.FrontFetchTool, policy.FrontProxy} {
			d := policy.Decide(context.Background(), policy.Args{Front: front, Origin: origin(t, "https://new.example/"), Workspace: ws, Profile: prof, ProfileExplicit: true, Layers: l.Layers})
			if d.Result != policy.Deny || d.Refusal == nil || d.Refusal.Code != refusal.NotApproved || d.Layer != policy.LayerManaged || d.File != l.ManagedPath {
				t.Errorf("profile %q (%v): %v; want deny not_approved by the managed policy %s", prof, front, d, l.ManagedPath)
			}
		}
	}
}

// The rules of a workspace without a root (the zero Workspace of an
// embedder with no workspace) or with a relative one are never read from
// .oc_chat/ of the process's current directory — another project's
// rules: without a root there are no workspace rules; a relative root is
// refused by name, as local mode refuses it.
func TestDecideWorkspaceWithoutRootFailsClosed(t *testing.T) {
	cwd := testws.New(t, testws.Spec{Allow: []string{"x.example:443"}, Deny: []string{"y.example:443"}})
	l := testlayers.New(t, cwd)
	t.Chdir(cwd.Root)
	// No workspace: no workspace rules — the current directory's allow
	// does not count (asked, as under standard with no rule).
	for _, u := range []string{"https://x.example/", "https://y.example/"} {
		d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, u), Workspace: workspace.Workspace{}, Profile: risk.Standard, Layers: l.Layers})
		if d.Result != policy.Ask {
			t.Errorf("no root, %s: %v (%+v); want ask: no workspace rules, the current directory's not read", u, d, d.Refusal)
		}
	}
	// A relative root: refused by name, whatever the current directory holds.
	for _, u := range []string{"https://x.example/", "https://y.example/"} {
		d := policy.Decide(context.Background(), policy.Args{Origin: origin(t, u), Workspace: workspace.Workspace{Root: "relative"}, Profile: risk.Standard, Layers: l.Layers})
		if d.Result != policy.Deny || d.Refusal == nil || d.Refusal.Code != refusal.RulesInvalid || d.Layer != policy.LayerWorkspace || d.Refusal.Hint == "" ||
			!strings.Contains(d.Refusal.Message, "not an absolute path") {
			t.Errorf("relative root, %s: %v (%+v); want deny rules_invalid by the workspace layer, saying the path is not absolute", u, d, d.Refusal)
		}
	}
}
