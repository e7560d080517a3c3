package trust_test

import (
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/trust"
)

// TestEncodeBytes pins the bytes trust.json is written as: one workspace
// a line, JSON string escaping, times in UTC, "incarnation" only when
// set, a trailing newline; an empty store as "[]".
func TestEncodeBytes(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 500, time.FixedZone("x", 3600))
	tests := []struct {
		name    string
		entries []trust.Entry
		want    string
	}{
		{"empty", nil, "{\n  \"schema_version\": 1,\n  \"workspaces\": []\n}\n"},
		{"two entries", []trust.Entry{
			{Path: "/p", ID: "1:2", Incarnation: "birth:1.5", TrustedAt: at, How: "ocfetch trust"},
			{Path: "/q\"<&>\x01", TrustedAt: at, How: ""},
		}, "{\n  \"schema_version\": 1,\n  \"workspaces\": [\n" +
			"    {\"path\": \"/p\", \"id\": \"1:2\", \"incarnation\": \"birth:1.5\", \"trusted_at\": \"2026-12-01T09:00:00.0000005Z\", \"how\": \"ocfetch trust\"},\n" +
			"    {\"path\": \"/q\\\"\\u003c\\u0026\\u003e\\u0001\", \"id\": \"\", \"trusted_at\": \"2026-12-01T09:00:00.0000005Z\", \"how\": \"\"}\n" +
			"  ]\n}\n"},
	}
	for _, tc := range tests {
		if got := string(trust.Encode(tc.entries)); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
