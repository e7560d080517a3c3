package mcpstdio

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzTopLevelID: the id the guard answers a refused line with, read from
// a hostile line. It is a JSON string or number, and it is the value of
// the object's own top-level "id" member (never one from a nested
// object); an object without one gives none (null).
func FuzzTopLevelID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x"}`, `{"id":"a\u0041"}`, `{"params":{"id":7},"id":8}`,
		`{"params":{"id":7}}`, `{"id":null}`, `{"id":{"id":1}}`, `{"id":[1]}`, `{"id":1e400}`,
		`[{"id":1}]`, `{"a":[{"id":2}],"b":{"c":{"id":3}}}`, `{"id":1,"id":2}`, `"id"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // the guard answers such a line before it looks for an id
		}
		id := topLevelID(data)
		var obj map[string]json.RawMessage
		isObj := json.Unmarshal(data, &obj) == nil
		if id == nil {
			if isObj {
				if v, ok := obj["id"]; ok && hasDuplicateID(data) == 0 {
					if c := bytes.TrimSpace(v); len(c) > 0 && (c[0] == '"' || c[0] == '-' || c[0] >= '0' && c[0] <= '9') {
						t.Fatalf("topLevelID(%s) = nil, but the object's id is %s", data, v)
					}
				}
			}
			return
		}
		if !json.Valid(id) || !isObj {
			t.Fatalf("topLevelID(%s) = %s", data, id)
		}
		if hasDuplicateID(data) > 0 {
			return // which of two ids is named is the reader's choice
		}
		if got, want := decodeNumber(id), decodeNumber(obj["id"]); got == nil || got != want {
			t.Fatalf("topLevelID(%s) = %s; the object's id is %s", data, id, obj["id"])
		}
	})
}

// decodeNumber decodes a JSON value with numbers kept as written.
func decodeNumber(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// hasDuplicateID counts the top-level "id" members of the object data
// beyond the first.
func hasDuplicateID(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return 0
		}
		if k == "id" {
			n++
		}
	}
	return max(n-1, 0)
}
