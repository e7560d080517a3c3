package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWalk checks Walk against encoding/json, which it must agree with on
// every valid UTF-8 document: Walk accepts exactly what json.Valid accepts,
// less documents with a duplicate key; it visits every value once, each
// scalar's Raw is that scalar's literal at Offset, a string's Text is what
// json.Unmarshal decodes, and Int agrees with strconv.ParseInt on the
// literals IsInt accepts.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": 1, "ports": [3000, 8080]}`,           // the allowlist
		`{"schema_version": 1, "risk_profile": "standard"}`,      // settings
		`{"schema_version":1,"rules":[{"target":{"port":443}}]}`, // rules-shaped nesting
		`{"a": 1, "a": 2}`,             // duplicate key
		`{"ab": 1, "\u0061\u0062": 2}`, // duplicate by escape
		`{"\ud800": 1, "\udbff": 2}`,   // duplicate by surrogate replacement
		`{"k":0,"k"00}`,                // duplicate, then invalid: the duplicate is reported
		`[-0, 0.5, 1e3, 1E+3, -1.5e-7, 123456789012345678901234567]`, // number grammar
		`[01]`, `[1.]`, `[.5]`, `[+1]`, `[1e]`, `[-]`, // not numbers
		`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`,                                   // every escape
		`["\ud83d\u0041", "\udc00\ud83d\ude00", "\ud83d\ud83d\ude00", "\ud83d"]`, // surrogates that do not pair
		`"\x"`, `"\u12"`, "\"\t\"", // bad escapes, a raw tab
		`[true, false, null]`, `[tru]`, `nul`, // literals
		`{} {}`, `{} x`, `1 2`, // trailing data
		"\ufeff{}",             // a BOM
		"\xff", "\"\xc3\x28\"", // invalid UTF-8
		``, ` `, // empty
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, // deep
		`{"a":{"b":{"c":[{"d":[]}]}},"e":[[],{}]}`,                            // mixed
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Substrings changes where keys and texts are stored, nothing a
		// visitor sees.
		tr, trErr := trace(&Walker{MaxDepth: math.MaxInt}, data)
		trSub, errSub := trace(&Walker{MaxDepth: math.MaxInt, Substrings: true}, data)
		if fmt.Sprint(trErr) != fmt.Sprint(errSub) || !slices.Equal(tr, trSub) {
			t.Fatalf("Substrings walk of %q: %q, %v; without: %q, %v", data, trSub, errSub, tr, trErr)
		}
		w := &Walker{MaxDepth: math.MaxInt}
		counts := map[Kind]int{}
		err := w.Walk(data, func(p Path, v Value) error {
			counts[v.Kind]++
			if !pathIs(p, p.String()) {
				t.Fatalf("pathIs(%q, %q) = false", p, p.String())
			}
			if v.Offset < 0 || v.Offset >= len(data) {
				t.Fatalf("Offset %d outside the document", v.Offset)
			}
			if v.Kind == Object || v.Kind == Array {
				if v.Raw != nil {
					t.Fatalf("%v at %d has Raw %q", v.Kind, v.Offset, v.Raw)
				}
				return nil
			}
			if !bytes.HasPrefix(data[v.Offset:], v.Raw) || !json.Valid(v.Raw) {
				t.Fatalf("Raw %q is not a literal at offset %d", v.Raw, v.Offset)
			}
			switch v.Kind {
			case String:
				var s string
				if err := json.Unmarshal(v.Raw, &s); err != nil || s != v.Text() {
					t.Fatalf("Text(%s) = %q; json.Unmarshal says %q, %v", v.Raw, v.Text(), s, err)
				}
				if got := v.AppendText([]byte("pre")); string(got) != "pre"+s {
					t.Fatalf("AppendText(%s) appended %q; want %q", v.Raw, got[3:], s)
				}
			case Number:
				lit := string(v.Raw)
				if IsInt(v.Raw) == strings.ContainsAny(lit, ".eE") {
					t.Fatalf("IsInt(%s) = %v", lit, IsInt(v.Raw))
				}
				n, ok := Int(v.Raw, math.MinInt64, math.MaxInt64)
				want, perr := strconv.ParseInt(lit, 10, 64)
				if ok != (perr == nil) || (ok && n != want) {
					t.Fatalf("Int(%s) = %d, %v; ParseInt says %d, %v", lit, n, ok, want, perr)
				}
			}
			return nil
		})
		if !utf8.Valid(data) {
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Walk(%q) = %v; want ErrInvalidUTF8", data, err)
			}
			return
		}
		valid := json.Valid(data)
		switch {
		case err == nil:
			if !valid {
				t.Fatalf("Walk accepted %q, which encoding/json refuses", data)
			}
		case errors.Is(err, ErrDuplicateKey):
			// Reported at the second key, before the rest is read: the
			// document may be invalid further on. The key must be there.
			var e *Error
			if !errors.As(err, &e) || e.Offset >= len(data) || data[e.Offset] != '"' {
				t.Fatalf("Walk(%q) = %v; want an *Error at a key", data, err)
			}
			sc := scanner{data: data, w: w}
			end, _, serr := sc.str(e.Offset)
			var key string
			if serr != nil || json.Unmarshal(data[e.Offset:end], &key) != nil || key != e.Key {
				t.Fatalf("duplicate key %q reported at %d, where %q is", e.Key, e.Offset, data[e.Offset:end])
			}
			return
		case errors.Is(err, ErrSyntax), errors.Is(err, ErrTrailingData), errors.Is(err, ErrEmpty):
			if valid {
				t.Fatalf("Walk(%q) = %v, but encoding/json accepts it", data, err)
			}
			return
		default:
			t.Fatalf("Walk(%q) = unexpected error %v", data, err)
		}
		// Accepted: every value was visited once.
		var doc any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("decode %q: %v", data, err)
		}
		want := map[Kind]int{}
		countKinds(doc, want)
		for _, k := range []Kind{Null, Bool, Number, String, Array, Object} {
			if counts[k] != want[k] {
				t.Fatalf("%q: visited %d values of kind %v; the document has %d", data, counts[k], k, want[k])
			}
		}
	})
}

// trace is what a visitor sees of a walk: each value's path, kind, raw
// literal and text.
func trace(w *Walker, data []byte) ([]string, error) {
	var tr []string
	err := w.Walk(data, func(p Path, v Value) error {
		tr = append(tr, fmt.Sprintf("%s %v %q %q", p, v.Kind, v.Raw, v.Text()))
		return nil
	})
	return tr, err
}

func countKinds(v any, counts map[Kind]int) {
	switch v := v.(type) {
	case nil:
		counts[Null]++
	case bool:
		counts[Bool]++
	case json.Number:
		counts[Number]++
	case string:
		counts[String]++
	case []any:
		counts[Array]++
		for _, e := range v {
			countKinds(e, counts)
		}
	case map[string]any:
		counts[Object]++
		for _, e := range v {
			countKinds(e, counts)
		}
	}
}
