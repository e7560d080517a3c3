package strictjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestEncodeList(t *testing.T) {
	item := func(b *bytes.Buffer, v string) { b.WriteString(`{"v": ` + Quote(v) + `}`) }
	tests := []struct {
		items []string
		want  string
	}{
		{nil, "{\n  \"schema_version\": 2,\n  \"list\": []\n}\n"},
		{[]string{"a"}, "{\n  \"schema_version\": 2,\n  \"list\": [\n    {\"v\": \"a\"}\n  ]\n}\n"},
		{[]string{"a", "<\"\x00\u2028>"}, "{\n  \"schema_version\": 2,\n  \"list\": [\n    {\"v\": \"a\"},\n    {\"v\": \"\\u003c\\\"\\u0000\\u2028\\u003e\"}\n  ]\n}\n"},
	}
	for _, tc := range tests {
		got := EncodeList(2, "list", tc.items, item)
		if string(got) != tc.want {
			t.Errorf("EncodeList(%q) =\n%s\nwant\n%s", tc.items, got, tc.want)
		}
		// What it writes is what Walk reads.
		w := Walker{Keys: []string{"schema_version", "list", "v"}}
		if err := w.Walk(got, nil); err != nil {
			t.Errorf("Walk(EncodeList(%q)): %v", tc.items, err)
		}
		var back struct{ List []struct{ V string } }
		if err := json.Unmarshal(got, &back); err != nil || len(back.List) != len(tc.items) {
			t.Fatalf("decoded %v, %v", back, err)
		}
		for i, v := range back.List {
			if v.V != tc.items[i] {
				t.Errorf("item %d decodes to %q; want %q", i, v.V, tc.items[i])
			}
		}
	}
}
