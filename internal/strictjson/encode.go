package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// EncodeList renders the files ocfetch writes that hold a schema version
// and one array (rules.json, trust.json): indented, one element a line so
// that a diff shows one line per change, and a trailing newline:
//
//	{
//	  "schema_version": 1,
//	  "rules": [
//	    {"capability": "network", ...},
//	    {"capability": "network", ...}
//	  ]
//	}
//
// item writes element v, on one line, without a trailing comma; an empty
// items writes "key": [].
func EncodeList[T any](version int, key string, items []T, item func(b *bytes.Buffer, v T)) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"schema_version\": %d,\n  %s: [", version, Quote(key))
	for i, v := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		item(&b, v)
	}
	if len(items) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// Quote is s as a JSON string, escaped as encoding/json escapes it.
func Quote(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}
