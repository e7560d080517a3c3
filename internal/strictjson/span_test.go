package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestSpanAndDepth(t *testing.T) {
	tests := []struct {
		data  string
		start int
		span  string
		depth int
	}{
		{`{"rules": [1, [2], "]"], "x": 1}`, 10, `[1, [2], "]"]`, 3},
		{`[{"a": "\"]"}, {}]`, 0, `[{"a": "\"]"}, {}]`, 2},
		{`"[[["`, 0, `"[[["`, 0},
		{`[[`, 0, `[[`, 2},
		{`42`, 0, `42`, 0},
	}
	for _, tc := range tests {
		if got := string(Span([]byte(tc.data), tc.start)); got != tc.span {
			t.Errorf("Span(%q, %d) = %q; want %q", tc.data, tc.start, got, tc.span)
		}
		if got := Depth([]byte(tc.data)); got != tc.depth {
			t.Errorf("Depth(%q) = %d; want %d", tc.data, got, tc.depth)
		}
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	if got := Depth([]byte(deep)); got != 100000 {
		t.Errorf("Depth of 100,000 nested arrays = %d; want 100000 (no recursion)", got)
	}
}

// TestStructure: brackets, commas and colons outside strings, in order,
// with the depth after each; strings and escapes skipped; stops when
// told to; ends on broken input.
func TestStructure(t *testing.T) {
	tests := []struct {
		data string
		stop int // stop after this many calls; 0 never
		want string
	}{
		{`{"a": [1, "x,]:\"["], "b": {}}`, 0, "{1 :1 [2 ,2 ]1 ,1 :1 {2 }1 }0"},
		{`"[,:]"`, 0, ""},
		{`[[1,2],3]`, 2, "[1 [2"},
		{`]],`, 0, "]-1 ]-2 ,-2"},
		{`["\\", ["`, 0, "[1 ,1 [2"},
		{``, 0, ""},
	}
	for _, tc := range tests {
		var got []string
		Structure([]byte(tc.data), func(i, depth int) bool {
			got = append(got, fmt.Sprintf("%c%d", tc.data[i], depth))
			return tc.stop == 0 || len(got) < tc.stop
		})
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("Structure(%q) = %q; want %q", tc.data, s, tc.want)
		}
	}
}

// FuzzStructure checks Structure against encoding/json's tokens on valid
// JSON (the same brackets in the same order, back to depth 0) and that
// it ends on any input with each depth one step from the last.
func FuzzStructure(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x,]:\"["], "b": {}}`, `[[`, `"\\"`, `]]`, `{"k":"v","l":[true,null]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var brackets []byte
		last := 0
		Structure(data, func(i, depth int) bool {
			switch c := data[i]; c {
			case '[', '{', ']', '}':
				if d := depth - last; (d != 1 || (c != '[' && c != '{')) && (d != -1 || (c != ']' && c != '}')) {
					t.Fatalf("%q at %d: depth %d after %d", c, i, depth, last)
				}
				brackets = append(brackets, c)
			default:
				if depth != last {
					t.Fatalf("%q at %d changed the depth", c, i)
				}
			}
			last = depth
			return true
		})
		if !json.Valid(data) {
			return
		}
		var want []byte
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if d, ok := tok.(json.Delim); ok {
				want = append(want, byte(d))
			}
		}
		if last != 0 || string(brackets) != string(want) {
			t.Fatalf("%q: brackets %q (depth %d at the end); encoding/json's %q", data, brackets, last, want)
		}
	})
}
