package explain_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/explain"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// scopeOf is ws's scope under fresh layer files, ws trusted when trusted.
func scopeOf(t *testing.T, ws workspace.Workspace, trusted bool) *scope.Scope {
	t.Helper()
	l := testlayers.New(t)
	if trusted {
		l.Trust(t, ws)
	}
	sc, err := scope.Open(ws, scope.Flags{}, l.Layers)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// For names the deciding layer, rule and file, the origin only (never the
// path or query), and the scheme rule of the front asked.
func TestForDecision(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"example.com:443"}, Deny: []string{"tracker.example:443"}})
	sc := scopeOf(t, ws, true)
	ctx := context.Background()
	for _, tc := range []struct {
		name, url                     string
		front                         policy.Front
		decision, layer, rule, reason string
	}{
		{"allowed by a rule", "https://example.com/docs?q=secret", policy.FrontFetchTool, "allow", "workspace", "allow example.com:443", ""},
		{"denied by a rule", "https://tracker.example/", policy.FrontFetchTool, "deny", "workspace", "deny tracker.example:443", string(refusal.DeniedByRule)},
		{"asked", "https://other.example/", policy.FrontFetchTool, "ask", "builtin", "", string(refusal.NotApproved)},
		{"the proxy, asked", "http://other.example/", policy.FrontProxy, "ask", "builtin", "", string(refusal.NotApproved)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := explain.For(ctx, sc, tc.front, tc.url)
			if e.Decision != tc.decision || e.Layer != tc.layer || e.Rule != tc.rule || string(e.Reason) != tc.reason {
				t.Errorf("For(%s) = decision %q layer %q rule %q reason %q; want %q %q %q %q",
					tc.url, e.Decision, e.Layer, e.Rule, e.Reason, tc.decision, tc.layer, tc.rule, tc.reason)
			}
			if tc.rule != "" && e.File != ws.RulesPath() {
				t.Errorf("File = %q; want %q", e.File, ws.RulesPath())
			}
			if strings.Contains(e.URL, "docs") || strings.Contains(e.URL, "secret") {
				t.Errorf("URL = %q: holds the path or query", e.URL)
			}
			if e.Front != tc.front.String() || e.Scheme == "" || len(e.Trace) == 0 {
				t.Errorf("Front %q, Scheme %q, %d trace steps; want %q, a scheme rule, a trace", e.Front, e.Scheme, len(e.Trace), tc.front)
			}
		})
	}
}

// A URL refused before any decision says why, with the command's own
// hint for an invalid one; an IP literal carries the address check.
func TestForRefusedAndAddress(t *testing.T) {
	ws := testws.New(t, testws.Spec{})
	sc := scopeOf(t, ws, true)
	ctx := context.Background()
	e := explain.For(ctx, sc, policy.FrontFetchTool, "https://example.com:99999/")
	if e.Decision != "refused" || e.Reason != refusal.InvalidArguments || e.Hint != explain.URLHint || e.Target != nil {
		t.Errorf("bad port: decision %q reason %q hint %q target %v; want refused, invalid_arguments, URLHint, none", e.Decision, e.Reason, e.Hint, e.Target)
	}
	e = explain.For(ctx, sc, policy.FrontFetchTool, "https://10.0.0.1/")
	if e.Address == nil || e.Address.IP != "10.0.0.1" || e.Address.Public || e.Address.Range == "" {
		t.Errorf("10.0.0.1: Address = %+v; want not public, with its range", e.Address)
	}
	if e.Decision != "deny" {
		t.Errorf("10.0.0.1: decision %q; want deny", e.Decision)
	}
}

// The layers' states: an untrusted workspace's grants are listed (as
// trust.Grants.Lines words them) and said to be ignored; a trusted one's
// apply; the managed and user layers are absent when they have no file.
func TestForLayers(t *testing.T) {
	ws := testws.New(t, testws.Spec{Allow: []string{"a.example:443"}})
	ctx := context.Background()
	for _, trusted := range []bool{false, true} {
		sc := scopeOf(t, ws, trusted)
		e := explain.For(ctx, sc, policy.FrontFetchTool, "https://a.example/")
		if e.Trusted == nil || *e.Trusted != trusted {
			t.Fatalf("trusted %v: Trusted = %v", trusted, e.Trusted)
		}
		var names []string
		for _, l := range e.Layers {
			names = append(names, l.Layer)
		}
		if d := cmp.Diff([]string{"managed", "workspace", "user"}, names); d != "" {
			t.Errorf("layers (-want +got):\n%s", d)
		}
		w := e.Layers[1]
		if d := cmp.Diff([]trust.GrantLine{{What: "allow a.example:443", File: ws.RulesPath()}}, w.Grants); d != "" {
			t.Errorf("workspace grants (-want +got):\n%s", d)
		}
		want := "untrusted: its grants (allow a.example:443 from " + ws.RulesPath() + ") are ignored; its restrictions apply"
		if trusted {
			want = "trusted ("
		}
		if w.File != ws.Dir() || !strings.HasPrefix(w.State, want) {
			t.Errorf("trusted %v: workspace layer %s %q; want %s %q…", trusted, w.File, w.State, ws.Dir(), want)
		}
		if e.Layers[0].State != "absent" || e.Layers[2].State != "absent" {
			t.Errorf("managed %q, user %q; want both absent", e.Layers[0].State, e.Layers[2].State)
		}
	}
}
