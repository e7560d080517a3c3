package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
)

// FuzzDecodeRules: the rules a managed policy embeds. DecodeRules keeps
// every rule or none: each accepted rule is the one written, in order,
// with its decision (a deny is never dropped or turned into an allow),
// normalised (its host a ParseHostPattern fixed point, its port 1–65535),
// and it decodes again to itself from the form rules.json writes. A
// refusal is one short line, whatever the input.
func FuzzDecodeRules(f *testing.F) {
	for _, s := range []string{
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.Bücher.example.", "port": 8443}, "decision": "deny"},
		  {"capability": "network", "target": {"schema": "network.target.v1", "host": "[::1]", "port": 8080}, "decision": "allow"}]`,
		`[]`, `null`, `{}`, `[null]`, `[{}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.com", "port": 443}, "decision": "deny"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 4.43e2}, "decision": "deny"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "DENY"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "deny", "x": 1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // the caller has checked the document's syntax
		}
		got, err := DecodeRules(data)
		if err != nil {
			if msg := err.Error(); len(msg) > 1024 || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("DecodeRules: message %q is long or not one line", msg)
			}
			return
		}
		var raw []struct{ Decision any }
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("DecodeRules accepted %q, which is not a JSON array: %v", data, err)
		}
		if len(raw) != len(got) {
			t.Fatalf("DecodeRules(%q): %d rules from %d", data, len(got), len(raw))
		}
		for i, r := range got {
			if d, _ := raw[i].Decision.(string); string(r.Decision) != d || (d != "allow" && d != "deny") {
				t.Fatalf("rule %d: decision %q from %v", i+1, r.Decision, raw[i].Decision)
			}
			p, err := capability.ParseHostPattern(r.Target.Host)
			if err != nil || p.String() != r.Target.Host {
				t.Fatalf("rule %d: host %q is not normal (%v, %v)", i+1, r.Target.Host, p, err)
			}
			if r.Target.Port == 0 || r.Capability != capability.KindNetwork {
				t.Fatalf("rule %d: %+v", i+1, r)
			}
		}
		enc := encode(got)
		var doc struct{ Rules json.RawMessage }
		if err := json.Unmarshal(enc, &doc); err != nil {
			t.Fatal(err)
		}
		again, err := DecodeRules(doc.Rules)
		if err != nil {
			t.Fatalf("DecodeRules of its own encoding %s: %v", doc.Rules, err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}
