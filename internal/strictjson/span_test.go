package strictjson

import (
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
