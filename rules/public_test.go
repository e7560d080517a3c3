package rules_test

import (
	"context"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// TestPublicHTTPSRule: the open-web rule is exactly "allow *:443". It
// loads, is stored and removed like any rule, is reported by
// Set.PublicHTTPS and never by Set.Decide (the policy decides where it
// applies); any other rule with host "*" fails the file closed.
func TestPublicHTTPSRule(t *testing.T) {
	ws := newWS(t)
	writeRules(t, ws, doc(ruleObj(`"*"`, "443", `"allow"`), ruleObj(`"example.com"`, "443", `"deny"`)))
	set, err := rules.Load(ws)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := set.PublicHTTPS()
	if !ok || r.String() != "allow *:443" {
		t.Errorf("PublicHTTPS = %v, %v; want allow *:443", r, ok)
	}
	for _, host := range []string{"www.example.org", "example.com"} {
		m, ok := set.Decide(capability.Network(capability.MustTarget(host, 443)))
		if host == "example.com" {
			if !ok || m.Decision != rules.Deny {
				t.Errorf("Decide(example.com) = %v, %v; want the deny rule", m, ok)
			}
			continue
		}
		if ok {
			t.Errorf("Decide(%s) = %v; want no match (the open-web rule is the policy's)", host, m)
		}
	}

	for _, bad := range []string{
		ruleObj(`"*"`, "443", `"deny"`),
		ruleObj(`"*"`, "80", `"allow"`),
		ruleObj(`"*"`, "8443", `"allow"`),
	} {
		ws := newWS(t)
		writeRules(t, ws, doc(bad))
		if _, err := rules.Load(ws); refusal.CodeOf(err) != refusal.RulesInvalid {
			t.Errorf("Load(%s) = %v; want rules_invalid", bad, err)
		}
	}

	ws = newWS(t)
	ctx := context.Background()
	if err := rules.Add(ctx, ws, rules.PublicHTTPSRule()); err != nil {
		t.Fatal(err)
	}
	if set, err := rules.Load(ws); err != nil || set.Len() != 1 {
		t.Fatalf("after Add: %v rules, %v; want 1", set.Len(), err)
	}
	removed, err := rules.Remove(ctx, ws, rules.PublicHTTPSHost, rules.PublicHTTPSPort)
	if err != nil || !removed {
		t.Fatalf("Remove(*:443) = %v, %v; want removed", removed, err)
	}
	if set, _ := rules.Load(ws); set.Len() != 0 {
		t.Errorf("after Remove: %d rules; want 0", set.Len())
	}
	if err := rules.Add(ctx, ws, rule(rules.Deny, "*", 443)); refusal.CodeOf(err) != refusal.InvalidArguments {
		t.Errorf("Add(deny *:443) = %v; want invalid_arguments", err)
	}
}
