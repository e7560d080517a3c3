package content

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// shapeRef is the size bound and depth as prettyJSON computed them before
// it used strictjson.Structure: a byte-by-byte scan of its own.
func shapeRef(trimmed []byte) (size, maxDepth int) {
	depth := 0
	inString, escaped := false, false
	for _, c := range trimmed {
		if inString {
			size++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			inString = true
		case '[', '{':
			depth++
			maxDepth = max(maxDepth, depth)
			size += 1 + 2*depth
		case ']', '}':
			depth--
			size += 1 + 2*max(depth, 0)
		case ',':
			size += 1 + 2*max(depth, 0)
		case ':':
			size++
		}
		size++
	}
	return size, maxDepth
}

// FuzzJSONShape: on valid JSON, jsonShape gives the bound and depth the
// old scan gave, and the bound is at least what json.Indent writes.
func FuzzJSONShape(f *testing.F) {
	for _, s := range []string{
		`{"b":[1,2],"a":{"x":"é"}}`, " [ 1 , [ ] , { } ,\n\t\"s\\\" ]\" ] ", `{ "k" : [ true , null ] }`, `"x"`, `[[[[1]]]]`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		trimmed := bytes.TrimSpace(data)
		size, depth, err := jsonShape(context.Background(), trimmed)
		if err != nil {
			t.Fatal(err)
		}
		if wantSize, wantDepth := shapeRef(trimmed); size != wantSize || depth != wantDepth {
			t.Fatalf("%q: size %d depth %d; the old scan: %d, %d", data, size, depth, wantSize, wantDepth)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, trimmed, "", "  "); err == nil && out.Len() > size {
			t.Fatalf("%q: indented %d bytes, over the bound %d", data, out.Len(), size)
		}
	})
}
