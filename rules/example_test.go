package rules_test

import (
	"fmt"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/rules"
)

func Example() {
	// What `ocfetch rules allow *.example.com` and `rules deny admin.example.com` save.
	p1, port1, _ := rules.ParseRuleTarget("*.example.com")
	p2, port2, _ := rules.ParseRuleTarget("admin.example.com:443")
	set, _ := rules.NewSet(rules.NewRule(rules.Allow, p1, port1), rules.NewRule(rules.Deny, p2, port2))

	for _, hostport := range []string{"api.example.com", "admin.example.com", "example.com", "api.example.com:8443"} {
		target, _ := capability.ParseTarget(hostport, 443)
		if m, ok := set.Decide(capability.Network(target)); ok {
			fmt.Printf("%s: %s by %q\n", target, m.Decision, m.Rule)
		} else {
			fmt.Printf("%s: no rule\n", target)
		}
	}
	// Output:
	// api.example.com:443: allow by "allow *.example.com:443"
	// admin.example.com:443: deny by "deny admin.example.com:443"
	// example.com:443: no rule
	// api.example.com:8443: no rule
}
