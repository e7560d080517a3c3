package managed_test

import (
	"testing"

	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/risk"
)

// FuzzParse: the policy parser never panics, and what it accepts is a
// policy whose every field holds a valid value.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`, // every default
		`{"schema_version": 1, "max_profile": "permissive", "managed_rules_only": false, "allow_once": true, "require_sandbox": false}`,
		`{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.example.com", "port": 443}, "decision": "deny"}]}`,
		`{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "a\"]}b", "port": 443}, "decision": "deny"}]}`, // brackets in a string
		`{"rules": [], "rules": []}`,             // duplicate
		`{"rules": [{"target": {"port": 1e3}}]}`, // number forms
		`{"max_profile": "\u0073trict"}`,         // an escaped name
		`{"allow_once": null}`,
		`{"allow_public_https": false}`,
		`{"allow_trust_flag": "false"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := managed.Parse(data)
		if err != nil {
			return
		}
		if !p.MaxProfile.Valid() {
			t.Fatalf("accepted max_profile %q", p.MaxProfile)
		}
		if p.File != "" {
			t.Fatalf("Parse set File %q", p.File)
		}
		for _, r := range p.Rules.Rules() {
			if !r.Decision.Valid() || r.Target.Port == 0 {
				t.Fatalf("accepted rule %v", r)
			}
		}
		_ = p.Cap(risk.Permissive)
	})
}
