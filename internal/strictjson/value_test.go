package strictjson

import (
	"math"
	"strings"
	"testing"
)

func TestInt(t *testing.T) {
	tests := []struct {
		raw      string
		min, max int64
		want     int64
		ok       bool
	}{
		{"1", 1, 1, 1, true},
		{"0", 0, 10, 0, true},
		{"-0", 0, 0, 0, true},
		{"-12", -100, 100, -12, true},
		{"3000", 1, 65535, 3000, true},
		{"65535", 1, 65535, 65535, true},
		{"65536", 1, 65535, 0, false},
		{"0", 1, 65535, 0, false},
		{"-1", 0, math.MaxInt64, 0, false},
		{"9223372036854775807", 0, math.MaxInt64, math.MaxInt64, true},
		{"9223372036854775808", 0, math.MaxInt64, 0, false},
		{"99999999999999999999999", 0, math.MaxInt64, 0, false},
		{"1.0", 0, 10, 0, false},
		{"1e0", 0, 10, 0, false},
		{"1E0", 0, 10, 0, false},
		{"01", 0, 10, 0, false},
		{"+1", 0, 10, 0, false},
		{"-", -10, 10, 0, false},
		{`"1"`, 0, 10, 0, false},
		{"true", 0, 10, 0, false},
		{"null", 0, 10, 0, false},
		{"", 0, 10, 0, false},
		{" 1", 0, 10, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, ok := Int([]byte(tc.raw), tc.min, tc.max)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Int(%q, %d, %d) = %d, %v; want %d, %v", tc.raw, tc.min, tc.max, got, ok, tc.want, tc.ok)
			}
			if isInt := IsInt([]byte(tc.raw)); tc.ok && !isInt {
				t.Errorf("IsInt(%q) = false for a value Int accepts", tc.raw)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		doc  string
		want string
	}{
		{`{}`, "an object"},
		{`[3000]`, "a list"},
		{`"3000"`, `the string "3000"`},
		{`"a\u0000b\u00e9"`, `the string "a?b??"`},
		{`"` + strings.Repeat("s", 80) + `"`, `the string "` + strings.Repeat("s", 64) + `…"`},
		{`3000.0`, "3000.0"},
		{`1e3`, "1e3"},
		{`-0`, "-0"},
		{`true`, "true"},
		{`null`, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.doc, func(t *testing.T) {
			var got string
			err := (&Walker{}).Walk([]byte(tc.doc), func(p Path, v Value) error {
				if len(p) == 0 {
					got = Describe(v)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Describe(%s) = %q; want %q", tc.doc, got, tc.want)
			}
		})
	}
}
