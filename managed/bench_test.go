package managed_test

import (
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/managed"
)

// BenchmarkLoad is the per-call cost of the managed layer (read on every
// call, nothing cached): absent, the common case, and a present file with
// two rules.
func BenchmarkLoad(b *testing.B) {
	for _, tc := range []struct{ name, path string }{
		{"absent", filepath.Join(b.TempDir(), "ocfetch", "policy.json")},
		{"present", policyFile(b, `{"schema_version": 1, "max_profile": "standard", "rules": [
			{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.corp.example", "port": 443}, "decision": "allow"},
			{"capability": "network", "target": {"schema": "network.target.v1", "host": "pastebin.com", "port": 443}, "decision": "deny"}]}`)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opts := &managed.Options{Path: tc.path, Administrator: me}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := managed.Load(opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
