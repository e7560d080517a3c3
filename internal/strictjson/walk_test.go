package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// visit is one call of the visitor, flattened for comparison.
type visit struct {
	Path string
	Kind Kind
	Raw  string
	Off  int
}

// record walks data with w and returns every visit.
func record(w *Walker, data string) ([]visit, error) {
	var got []visit
	err := w.Walk([]byte(data), func(p Path, v Value) error {
		got = append(got, visit{p.String(), v.Kind, string(v.Raw), v.Offset})
		return nil
	})
	return got, err
}

func TestWalkVisitsInDocumentOrder(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []visit
	}{
		{"scalar", ` 12 `, []visit{{"", Number, "12", 1}}},
		{"empty object", `{}`, []visit{{"", Object, "", 0}}},
		{"empty list", `[ ]`, []visit{{"", Array, "", 0}}},
		{"members", `{"a": 1, "b": [true, null, "x"], "c": {}}`, []visit{
			{"", Object, "", 0},
			{"a", Number, "1", 6},
			{"b", Array, "", 14},
			{"b[0]", Bool, "true", 15},
			{"b[1]", Null, "null", 21},
			{"b[2]", String, `"x"`, 27},
			{"c", Object, "", 38},
		}},
		{"nested lists", `[[1],[],[[2]]]`, []visit{
			{"", Array, "", 0},
			{"[0]", Array, "", 1},
			{"[0][0]", Number, "1", 2},
			{"[1]", Array, "", 5},
			{"[2]", Array, "", 8},
			{"[2][0]", Array, "", 9},
			{"[2][0][0]", Number, "2", 10},
		}},
		{"objects in a list", `[{"k":1},{"k":2}]`, []visit{
			{"", Array, "", 0},
			{"[0]", Object, "", 1},
			{"[0].k", Number, "1", 6},
			{"[1]", Object, "", 9},
			{"[1].k", Number, "2", 14},
		}},
		{"escaped key is decoded", `{"p\u006frt": -0.5e+3}`, []visit{
			{"", Object, "", 0},
			{"port", Number, "-0.5e+3", 14},
		}},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":2}}`, []visit{
			{"", Object, "", 0},
			{"a", Object, "", 5},
			{"a.x", Number, "1", 10},
			{"b", Object, "", 17},
			{"b.x", Number, "2", 22},
		}},
		{"all whitespace kinds", "\t\r\n {\"a\"\n:\r[ 1\t, 2 ]\n}\n", []visit{
			{"", Object, "", 4},
			{"a", Array, "", 11},
			{"a[0]", Number, "1", 13},
			{"a[1]", Number, "2", 17},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := record(&Walker{}, tc.data)
			if err != nil {
				t.Fatalf("Walk(%q) = %v; want nil", tc.data, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("visits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWalkRefuses(t *testing.T) {
	schema := &Walker{MaxDepth: 3, Keys: []string{"port", "ports", "schema_version"}}
	tests := []struct {
		name   string
		w      *Walker
		data   string
		is     []error
		offset int    // -1: not an *Error
		msg    string // part of the message
	}{
		{"empty", nil, "", []error{ErrEmpty}, -1, "empty"},
		{"whitespace", nil, " \r\n\t", []error{ErrEmpty}, -1, "empty"},
		{"invalid UTF-8", nil, "{\"a\": \"\xff\"}", []error{ErrInvalidUTF8}, 7, "not valid UTF-8 at byte 7"},
		{"overlong UTF-8", nil, "\"\xc0\xaf\"", []error{ErrInvalidUTF8}, 1, "not valid UTF-8"},
		{"surrogate as UTF-8", nil, "\"\xed\xa0\x80\"", []error{ErrInvalidUTF8}, 1, "not valid UTF-8"},
		{"UTF-8 BOM", nil, "\ufeff{}", []error{ErrByteOrderMark, ErrSyntax}, 0, "a UTF-8 byte order mark (BOM) at byte 0; save it as UTF-8 without a BOM"},
		{"UTF-8 BOM, CRLF", nil, "\ufeff{\r\n}\r\n", []error{ErrByteOrderMark, ErrSyntax}, 0, "UTF-8 byte order mark"},
		{"UTF-16LE", nil, "\xff\xfe{\x00}\x00", []error{ErrByteOrderMark, ErrInvalidUTF8}, 0, "UTF-16 (its byte order mark is at byte 0), not UTF-8; save it as UTF-8 without a BOM"},
		{"UTF-16BE", nil, "\xfe\xff\x00{\x00}", []error{ErrByteOrderMark, ErrInvalidUTF8}, 0, "UTF-16"},
		{"BOM later", nil, "[\"\ufeff\", \ufeff1]", []error{ErrSyntax}, 8, `unexpected '\ufeff'`},
		{"truncated object", nil, `{"a": [1`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 8, "unexpected end of input"},
		{"truncated key", nil, `{"a`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 3, "unexpected end"},
		{"truncated after key", nil, `{"a"`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 4, "unexpected end"},
		{"truncated after colon", nil, `{"a": `, []error{ErrSyntax, io.ErrUnexpectedEOF}, 6, "unexpected end"},
		{"truncated literal", nil, `[tru`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 4, "unexpected end"},
		{"truncated escape", nil, `"\u00`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 5, "unexpected end"},
		{"truncated number", nil, `[1e`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 3, "unexpected end"},
		{"trailing comma", nil, `[1,]`, []error{ErrSyntax}, 3, "unexpected ']'; want a value"},
		{"trailing comma in object", nil, `{"a":1,}`, []error{ErrSyntax}, 7, "want a string key"},
		{"missing colon", nil, `{"a" 1}`, []error{ErrSyntax}, 5, "want ':'"},
		{"missing comma", nil, `[1 2]`, []error{ErrSyntax}, 3, "want ',' or ']'"},
		{"wrong closer", nil, `{"a":1]`, []error{ErrSyntax}, 6, "want ',' or '}'"},
		{"single quotes", nil, `{'a':1}`, []error{ErrSyntax}, 1, "want a string key"},
		{"bare word", nil, `nul`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 3, "unexpected end"},
		{"misspelled literal", nil, `[ture]`, []error{ErrSyntax}, 2, "want true"},
		{"leading zero", nil, `[01]`, []error{ErrSyntax}, 2, "want ',' or ']'"},
		{"plus sign", nil, `+1`, []error{ErrSyntax}, 0, "want a value"},
		{"bare fraction", nil, `.5`, []error{ErrSyntax}, 0, "want a value"},
		{"fraction without digits", nil, `1.`, []error{ErrSyntax, io.ErrUnexpectedEOF}, 2, "unexpected end"},
		{"exponent without digits", nil, `[1e+]`, []error{ErrSyntax}, 4, "want a digit"},
		{"minus alone", nil, `[-]`, []error{ErrSyntax}, 2, "want a digit"},
		{"NaN", nil, `NaN`, []error{ErrSyntax}, 0, "want a value"},
		{"control character in string", nil, "\"a\tb\"", []error{ErrSyntax}, 2, "control character"},
		{"bad escape", nil, `"\x41"`, []error{ErrSyntax}, 2, "invalid escape"},
		{"short unicode escape", nil, `"\u12G4"`, []error{ErrSyntax}, 5, "four hex digits"},
		{"comment", nil, `{} // note`, []error{ErrTrailingData}, 3, "trailing data after the JSON value at byte 3"},
		{"second value", nil, `{}{}`, []error{ErrTrailingData}, 2, "trailing data"},
		{"garbage after number", nil, `1 x`, []error{ErrTrailingData}, 2, "trailing data"},
		{"duplicate key", nil, `{"a":1,"b":2,"a":3}`, []error{ErrDuplicateKey}, 13, `duplicate key "a" at byte 13`},
		{"duplicate via escape", nil, `{"ab":1,"\u0061\u0062":2}`, []error{ErrDuplicateKey}, 8, `duplicate key "ab"`},
		{"duplicate via surrogate replacement", nil, `{"\ud800":1,"\udbff":2}`, []error{ErrDuplicateKey}, 12, "duplicate key"},
		{"duplicate in nested object", nil, `[{"a":1},{"a":1,"a":2}]`, []error{ErrDuplicateKey}, 16, `duplicate key "a"`},
		{"duplicate among many keys", nil, manyKeysDoc(40, "k7"), []error{ErrDuplicateKey}, strings.LastIndex(manyKeysDoc(40, "k7"), `"k7"`), `duplicate key "k7"`},
		{"too deep", &Walker{MaxDepth: 2}, `[[[1]]]`, []error{ErrTooDeep}, 2, "nested deeper than 2 levels at byte 2"},
		{"too deep by default", nil, strings.Repeat("[", DefaultMaxDepth+1), []error{ErrTooDeep}, DefaultMaxDepth, "nested deeper than 32"},
		{"hostile depth", nil, strings.Repeat(`{"a":`, 1<<20), []error{ErrTooDeep}, 5 * DefaultMaxDepth, "nested deeper"},
		{"unknown key", schema, `{"schema_version":1,"hosts":[]}`, []error{ErrUnknownKey}, 20, `unknown key "hosts" at byte 20 (known: port, ports, schema_version)`},
		{"key in another case", schema, `{"Ports":[]}`, []error{ErrUnknownKey}, 1, `unknown key "Ports"`},
		{"key folding to a known one", schema, `{"ſchema_version":1}`, []error{ErrUnknownKey}, 1, `unknown key "?`},
		{"key with Kelvin sign", schema, "{\"\u212aey\":1}", []error{ErrUnknownKey}, 1, "unknown key"},
		{"unknown key is sanitized", schema, `{"a\u0007b":1}`, []error{ErrUnknownKey}, 1, `unknown key "a?b"`},
		{"unknown key cut", schema, `{"` + strings.Repeat("x", 100) + `":1}`, []error{ErrUnknownKey}, 1, `"` + strings.Repeat("x", 64) + `…"`},
		{"unknown key before its value's syntax", schema, `{"x": [}`, []error{ErrUnknownKey}, 1, `unknown key "x"`},
		{"known key duplicated", schema, `{"ports":[],"ports":[]}`, []error{ErrDuplicateKey}, 12, `duplicate key "ports"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			if w == nil {
				w = &Walker{}
			}
			_, err := record(w, tc.data)
			if err == nil {
				t.Fatalf("Walk = nil; want %v", tc.is)
			}
			for _, want := range tc.is {
				if !errors.Is(err, want) {
					t.Errorf("Walk = %v; want errors.Is %v", err, want)
				}
			}
			var e *Error
			if got := errors.As(err, &e); got != (tc.offset >= 0) {
				t.Fatalf("errors.As(%v, *Error) = %v; want %v", err, got, tc.offset >= 0)
			}
			if e != nil && e.Offset != tc.offset {
				t.Errorf("Offset = %d; want %d (%v)", e.Offset, tc.offset, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not contain %q", err, tc.msg)
			}
			if !json.Valid([]byte(tc.data)) && errors.Is(err, ErrDuplicateKey) {
				t.Errorf("duplicate key reported for a document encoding/json refuses")
			}
		})
	}
}

// manyKeysDoc returns an object with n distinct keys k0… and then the
// key dup.
func manyKeysDoc(n int, dup string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	fmt.Fprintf(&b, `"%s":0}`, dup)
	return b.String()
}

func TestWalkManyKeys(t *testing.T) {
	// Past manyKeys the duplicate check switches to a map; a nested
	// object's keys must still be scoped to it.
	doc := manyKeysDoc(40, "k40")
	doc = strings.Replace(doc, `"k40":0`, `"k40":{"k1":1,"k2":{"k1":2}},"k41":1`, 1)
	got, err := record(&Walker{}, doc)
	if err != nil {
		t.Fatalf("Walk = %v; want nil", err)
	}
	// The object, k0…k39, k40 and its k1, k2 and k2's k1, then k41.
	if n := len(got); n != 1+40+1+1+1+1+1 {
		t.Errorf("%d visits; want 46", n)
	}
}

func TestWalkVisitorErrorStopsTheWalk(t *testing.T) {
	stop := errors.New("ports[0] is a list")
	data := `{"ports": ` + strings.Repeat("[", 1<<16) // truncated and too deep
	var calls int
	err := (&Walker{}).Walk([]byte(data), func(p Path, v Value) error {
		calls++
		if len(p) == 1 && v.Kind == Array {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Walk = %v; want the visitor's error unchanged", err)
	}
	if calls != 2 {
		t.Errorf("visitor called %d times; want 2", calls)
	}
}

func TestWalkInternsKnownKeys(t *testing.T) {
	w := &Walker{Keys: []string{"schema_version", "ports"}}
	data := []byte(`{"schema_version": 1, "ports": [3000, 8080]}`)
	allocs := testing.AllocsPerRun(100, func() {
		if err := w.Walk(data, func(Path, Value) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
	// None: the scanner comes from a pool (which the race detector may
	// bypass: then one), known keys are interned. Escaped or unknown keys
	// would cost more.
	if allocs > 1 {
		t.Errorf("Walk allocates %v times; want at most 1", allocs)
	}
}

// TestWalkSubstrings: with Substrings, unknown keys and unescaped texts
// are what they are without it, at one allocation per walk (the copy of
// the document) rather than one per key and per text.
func TestWalkSubstrings(t *testing.T) {
	data := []byte(`{"known": 1, "unknown": "text", "esc\u0061ped": "a\nb", "list": [{"k": "v", "w": "x"}, {"k": "", "w": null}]}`)
	plain := &Walker{Keys: []string{"known"}, AnyKeysAt: []string{"", "list[0]", "list[1]"}}
	sub := &Walker{Keys: plain.Keys, AnyKeysAt: plain.AnyKeysAt, Substrings: true}
	want, err := trace(plain, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace(sub, data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Substrings walk (-without +with):\n%s", d)
	}
	// Keys and texts of two bytes or more: Go does not allocate a
	// one-byte string.
	unescaped := []byte(`{"known": 1, "unknown": "text", "list": [{"key": "value", "other": "more"}, {"key": "again", "other": null}]}`)
	texts := func(w *Walker) func() {
		return func() {
			err := w.Walk(unescaped, func(p Path, v Value) error {
				_ = v.Text()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// Without Substrings, each of the four texts allocates (the keys
	// come from the scanner's key cache, TestWalkKeyCache); with it, only
	// the copy (and the scanner, if the race detector bypasses its pool):
	// one for four.
	with, without := testing.AllocsPerRun(100, texts(sub)), testing.AllocsPerRun(100, texts(plain))
	if with > 2 || without < with+3 {
		t.Errorf("allocations per walk: %v with Substrings, %v without; want at most 2, and 3 fewer than without", with, without)
	}
}

// TestWalkKeyCache: without Substrings, a key outside Keys met in an
// earlier walk costs no allocation, and the cache changes no key: a long
// key, an escaped one and two keys sharing a cache slot are what they are.
func TestWalkKeyCache(t *testing.T) {
	data := []byte(`{"query": "q", "results": [{"url": "u", "title": "t", "engine": "e", "score": 1}, {"url": "v", "title": "w", "engine": "f", "score": 2}], "answers": []}`)
	w := &Walker{}
	walk := func() {
		if err := w.Walk(data, func(Path, Value) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Seven distinct keys, met eleven times: eleven allocations without
	// the cache; with it none, but for the scanner and its keys again
	// when the race detector drops a pooled one (a quarter of them).
	if n := testing.AllocsPerRun(100, walk); n > 5 {
		t.Errorf("a walk met before allocates %v times; want at most 5", n)
	}
	// A document with more keys open at once, and nested deeper, than a
	// scanner's inline buffers hold: the grown scanner is pooled, and its
	// keys cached, too.
	var wide strings.Builder
	for i := range 12 {
		fmt.Fprintf(&wide, `{"k%d": 1, "n%d": `, i, i)
	}
	wide.WriteString("null" + strings.Repeat("}", 12))
	walkWide := func() {
		if err := w.Walk([]byte(wide.String()), func(Path, Value) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Each walk would otherwise allocate a scanner, grow its buffers
	// and allocate the 24 keys (28 or more); the race detector drops a
	// quarter of what is pooled (about 7 on average).
	if n := testing.AllocsPerRun(100, walkWide); n > 12 {
		t.Errorf("a walk of 24 keys, 12 deep, met before allocates %v times; want at most 12", n)
	}
	long := strings.Repeat("k", maxCachedKey+1)
	// "ab" and "ba" differ; "a_b" and "a~b" share a slot (same length, same
	// first and last byte).
	doc := []byte(`{"ab": 1, "ba": 2, "a_b": 3, "a~b": 4, "` + long + `": 5, "\u0061b": 6}`)
	var keys []string
	for range 2 {
		keys = keys[:0]
		err := w.Walk(doc, func(p Path, _ Value) error {
			if len(p) == 1 {
				keys = append(keys, p[0].Key)
			}
			return nil
		})
		if !errors.Is(err, ErrDuplicateKey) {
			t.Fatalf("Walk = %v; want the duplicate ab (escaped) refused", err)
		}
	}
	if want := []string{"ab", "ba", "a_b", "a~b", long}; !slices.Equal(keys, want) {
		t.Errorf("keys %q; want %q", keys, want)
	}
}

func TestValueText(t *testing.T) {
	tests := []struct {
		raw  string
		kind Kind
		want string
	}{
		{`"plain"`, String, "plain"},
		{`""`, String, ""},
		{`"a\"b\\c\/d\n\u00e9\ud83d\ude00"`, String, "a\"b\\c/d\né😀"},
		{`"\ud800"`, String, "\ufffd"},
		{`"\udc00\ud83d\ude00"`, String, "\ufffd😀"},                // a lone low surrogate, then a pair
		{`"\ud83d\u0041"`, String, "\ufffdA"},                      // a high surrogate unpaired: the next escape stays
		{`"\ud83d\ud83d\ude00x"`, String, "\ufffd😀x"},              // high, then a pair
		{`"\ud83dx"`, String, "\ufffdx"},                           // high, then no escape
		{`"\ud83d\n"`, String, "\ufffd\n"},                         // high, then another escape
		{`"\u00E9\u00e9\u0000\b\f\r\t"`, String, "éé\x00\b\f\r\t"}, // hex in either case, every short escape
		{`"é\"é"`, String, "é\"é"},
		{`12`, Number, ""},
		{`true`, Bool, ""},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			var got []string
			err := (&Walker{}).Walk([]byte(tc.raw), func(_ Path, v Value) error {
				if v.Kind != tc.kind {
					t.Errorf("Kind = %v; want %v", v.Kind, tc.kind)
				}
				got = append(got, v.Text())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("Text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathString(t *testing.T) {
	p := Path{{Key: "rules", Index: -1}, {Index: 3}, {Key: "target", Index: -1}, {Key: "host", Index: -1}}
	if got, want := p.String(), "rules[3].target.host"; got != want {
		t.Errorf("String = %q; want %q", got, want)
	}
	if got := Path(nil).String(); got != "" {
		t.Errorf("empty path String = %q; want \"\"", got)
	}
	if got, want := (Path{{Index: 0}, {Index: 1}}).String(), "[0][1]"; got != want {
		t.Errorf("String = %q; want %q", got, want)
	}
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{Null: "null", Bool: "a boolean", Number: "a number", String: "a string", Array: "a list", Object: "an object", 0: "Kind(0)"}
	for k, w := range want {
		if got := k.String(); got != w {
			t.Errorf("Kind(%d).String() = %q; want %q", k, got, w)
		}
	}
}

func BenchmarkWalkAllowlist(b *testing.B) {
	w := &Walker{MaxDepth: 2, Keys: []string{"schema_version", "ports"}}
	data := []byte(`{"schema_version": 1, "ports": [3000, 5173, 8080]}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Walk(data, func(Path, Value) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWalkStateIsNotShared: the scanner state is pooled; a walk that stops
// half-way (an error, a visitor's refusal, hostile depth) must leave
// nothing behind for the next one, also under concurrent use.
func TestWalkStateIsNotShared(t *testing.T) {
	w := &Walker{MaxDepth: 1 << 20}
	stop := errors.New("stop")
	for _, bad := range []string{
		`{"a": {"b": 1, "c": [1, {"d": 2`,
		`{"a": {"b": 1, "c": [1, {"d": 2, "d": 3}]}}`,
		strings.Repeat(`{"a":[`, 1000),
	} {
		if err := w.Walk([]byte(bad), nil); err == nil {
			t.Fatalf("Walk(%.40q) = nil; want an error", bad)
		}
		if err := w.Walk([]byte(bad), func(p Path, v Value) error {
			if len(p) == 3 {
				return stop
			}
			return nil
		}); err != stop {
			t.Fatalf("Walk(%.40q) = %v; want the visitor's error", bad, err)
		}
	}
	good := `{"a": {"b": 1, "c": [1, {"d": 2}]}, "d": 3}`
	want, err := record(w, good)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []visit)
	for range 4 {
		go func() {
			var got []visit
			for range 50 {
				got, _ = record(w, good)
				_ = w.Walk([]byte(`{"a": {"b": 1, "b": 2}}`), nil)
			}
			done <- got
		}()
	}
	for range 4 {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Errorf("visits after reuse mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestWalkAnyKeysAt(t *testing.T) {
	w := &Walker{
		MaxDepth:  4,
		Keys:      []string{"url", "headers", "rules", "env"},
		AnyKeysAt: []string{"headers", "rules[1].env"},
	}
	tests := []struct {
		name   string
		data   string
		is     error  // nil: accepted
		offset int    // of the refused key
		key    string // the refused key
		path   string // Error.Path of the refused key
	}{
		{"any key in a listed object", `{"url":"u","headers":{"X-A":"1","url":"2","ſ":"3"}}`, nil, 0, "", ""},
		{"listed by index", `{"rules":[{"env":{}},{"env":{"HOME":"/"}}]}`, nil, 0, "", ""},
		{"empty listed object", `{"headers":{}}`, nil, 0, "", ""},
		{"duplicate in a listed object", `{"headers":{"A":"1","A":"2"}}`, ErrDuplicateKey, 20, "A", "headers"},
		{"duplicate via escape in a listed object", `{"headers":{"AB":"1","\u0041B":"2"}}`, ErrDuplicateKey, 21, "AB", "headers"},
		{"duplicate after a listed object", `{"url":"u","headers":{"url":"1"},"url":"v"}`, ErrDuplicateKey, 33, "url", ""},
		{"nested object restricted again", `{"headers":{"A":{"B":1}}}`, ErrUnknownKey, 17, "B", "headers.A"},
		{"top level still restricted", `{"headers":{},"Headers":{}}`, ErrUnknownKey, 14, "Headers", ""},
		{"other index not listed", `{"rules":[{"env":{"HOME":"/"}}]}`, ErrUnknownKey, 18, "HOME", "rules[0].env"},
		{"same key elsewhere not listed", `{"env":{"HOME":"/"}}`, ErrUnknownKey, 8, "HOME", "env"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := record(w, tc.data)
			if tc.is == nil {
				if err != nil {
					t.Fatalf("Walk = %v; want nil", err)
				}
				return
			}
			var e *Error
			if !errors.Is(err, tc.is) || !errors.As(err, &e) {
				t.Fatalf("Walk = %v; want an *Error wrapping %v", err, tc.is)
			}
			if e.Offset != tc.offset || e.Key != tc.key || e.Path.String() != tc.path {
				t.Errorf("Offset, Key, Path = %d, %q, %q; want %d, %q, %q", e.Offset, e.Key, e.Path, tc.offset, tc.key, tc.path)
			}
		})
	}
}

func TestPathIs(t *testing.T) {
	key := func(k string) Step { return Step{Key: k, Index: -1} }
	idx := func(i int) Step { return Step{Index: i} }
	paths := []Path{
		nil,
		{key("headers")},
		{key("rules"), idx(1), key("env")},
		{idx(0), idx(12)},
		{key("a"), key("b")},
		{key("")},
	}
	wants := []string{"", "headers", "header", "headers.", "rules[1].env", "rules[1]env", "rules[01].env", "rules[1", "[0][12]", "[0][1]", "a.b", "ab", "a", "."}
	for _, p := range paths {
		for _, want := range wants {
			if got := pathIs(p, want); got != (p.String() == want) {
				t.Errorf("pathIs(%q, %q) = %v; want %v", p, want, got, !got)
			}
		}
	}
}
