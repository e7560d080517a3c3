package trust_test

import (
	"testing"

	"github.com/ocfetch/ocfetch/trust"
)

// FuzzParse: the store reader never panics, and whatever it accepts
// encodes back to a document it reads the same way.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"schema_version": 1, "workspaces": []}`, // the empty store
		`{"schema_version": 1, "workspaces": [{"path": "/p", "id": "1:2", "trusted_at": "2026-12-01T10:00:00Z", "how": "ocfetch trust"}]}`,
		`{"schema_version": 1, "workspaces": [{"path": "/p", "path": "/q"}]}`, // duplicate key
		`{"schema_version": 1, "workspaces": [[[[]]]]}`,                       // too deep
		`{"schema_version": 1, "workspaces": [{"path": "/p\u0000", "id": "", "trusted_at": "2026-12-01T10:00:00+02:00", "how": "\u202e"}]}`,
		`{"schema_version": 1e0, "workspaces": null}`,
		// The added field, both kinds, and an older ocfetch's entry beside them.
		`{"schema_version": 1, "workspaces": [{"path": "/p", "id": "1:2", "incarnation": "birth:1796158028.498590335", "trusted_at": "2026-12-01T10:00:00Z", "how": "ocfetch trust"}, {"path": "/q", "id": "3:4", "trusted_at": "2026-12-01T10:00:00Z", "how": ""}]}`,
		`{"schema_version": 1, "workspaces": [{"path": "/p", "id": "", "incarnation": "marker:0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f", "trusted_at": "2026-12-01T10:00:00Z", "how": ""}]}`,
		`{"schema_version": 1, "workspaces": [{"path": "/p", "id": "", "incarnation": "birth:\u0000", "trusted_at": "2026-12-01T10:00:00Z", "how": ""}]}`,
		`{"schema_version": 1, "workspaces": [{"incarnation": "marker:", "path": "/p"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := trust.Parse(data)
		if err != nil {
			return
		}
		back, err := trust.Parse(trust.Encode(entries))
		if err != nil {
			t.Fatalf("Parse(Encode(%v)) = %v", entries, err)
		}
		if len(back) != len(entries) {
			t.Fatalf("round trip changed %d entries to %d", len(entries), len(back))
		}
		for i := range back {
			if back[i].Path != entries[i].Path || back[i].ID != entries[i].ID || back[i].Incarnation != entries[i].Incarnation || !back[i].TrustedAt.Equal(entries[i].TrustedAt) || back[i].How != entries[i].How {
				t.Fatalf("round trip changed %v to %v", entries[i], back[i])
			}
		}
	})
}
