package fetchargs

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/refusal"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Args
	}{
		{"url only", `{"url":"https://example.com"}`, Args{URL: "https://example.com"}},
		{"whitespace around", " \n\t{\"url\": \"u\"} \n", Args{URL: "u"}},
		{"all fields", `{"url":"u","method":"POST","headers":{"A":"1","b":"2"},"body":"x","format":"text","max_length":5,"start_index":3}`,
			Args{URL: "u", Method: "POST", Headers: []Header{{"A", "1"}, {"b", "2"}}, Body: "x", HasBody: true, Format: "text", MaxLength: 5, HasMaxLen: true, StartIndex: 3}},
		{"nulls are absent", `{"url":"u","method":null,"headers":null,"body":null,"format":null,"max_length":null,"start_index":null}`, Args{URL: "u"}},
		{"empty body is a body", `{"url":"u","body":""}`, Args{URL: "u", HasBody: true}},
		{"integral float", `{"url":"u","max_length":2e4,"start_index":10.0}`, Args{URL: "u", MaxLength: 20000, HasMaxLen: true, StartIndex: 10}},
		{"escapes decoded", `{"url":"https://example.com/\u00e9"}`, Args{URL: "https://example.com/é"}},
		{"empty headers", `{"url":"u","headers":{}}`, Args{URL: "u"}},
		{"escapes", `{"url":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9"}`, Args{URL: "a\"b\\c/d\b\f\n\r\tAé"}},
		{"surrogate pair", `{"url":"\ud83d\ude00"}`, Args{URL: "😀"}},
		{"lone surrogate", `{"url":"\ud83dx"}`, Args{URL: "\ufffdx"}},
		{"high then non-low", `{"url":"\ud83d\u0041"}`, Args{URL: "\ufffdA"}},
		{"escaped key", `{"u\u0072l":"u"}`, Args{URL: "u"}},
		{"negative zero start", `{"url":"u","start_index":-0}`, Args{URL: "u"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.in)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgsRefusals(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ``},
		{"spaces", `   `},
		{"trailing comma", `{"url":"u",}`},
		{"missing colon", `{"url" "u"}`},
		{"single quotes", `{'url':'u'}`},
		{"unquoted key", `{url:"u"}`},
		{"control char in string", "{\"url\":\"a\tb\"}"},
		{"bad escape", `{"url":"\x41"}`},
		{"short unicode escape", `{"url":"\u12"}`},
		{"invalid UTF-8", "{\"url\":\"a\xffb\"}"},
		{"overlong UTF-8", "{\"url\":\"\xc0\xaf\"}"},
		{"leading zero", `{"url":"u","max_length":01}`},
		{"plus sign", `{"url":"u","max_length":+1}`},
		{"bare dot", `{"url":"u","max_length":1.}`},
		{"hex", `{"url":"u","max_length":0x10}`},
		{"NaN", `{"url":"u","max_length":NaN}`},
		{"nul literal", `{"url":nul}`},
		{"true url", `{"url":true}`},
		{"array url", `{"url":["u"]}`},
		{"headers trailing comma", `{"url":"u","headers":{"a":"b",}}`},
		{"headers nested", `{"url":"u","headers":{"a":{"b":"c"}}}`},
		{"headers null value", `{"url":"u","headers":{"a":null}}`},
		{"unterminated", `{"url":"u`},
		{"two objects", `{"url":"u"}{"url":"v"}`},
		{"BOM", "\ufeff{\"url\":\"u\"}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.in)
			if refusal.CodeOf(err) != refusal.InvalidArguments {
				t.Errorf("Decode(%q) = %+v, %v; want invalid_arguments", tc.in, got, err)
			}
		})
	}
}

// TestDecodeArgsMessages pins what each refusal says: the field, header
// name or byte offset at fault, and never a value (every value here is
// "s3cr3t" or holds it).
func TestDecodeArgsMessages(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", ``, "not valid JSON (unexpected end)"},
		{"truncated", `{"url":"s3cr3t`, "not valid JSON (unexpected end)"},
		{"syntax", `{"url":"s3cr3t" x}`, "not valid JSON (at byte 16)"},
		{"invalid UTF-8", "{\"url\":\"s3cr3t\xff\"}", "not valid UTF-8 (at byte 14)"},
		{"not an object", `["s3cr3t"]`, "arguments must be a JSON object"},
		{"trailing data", `{"url":"s3cr3t"} {"s3cr3t":1}`, "data after the JSON object"},
		{"unknown field", `{"url":"s3cr3t","retries":1}`, `unknown field "retries"`},
		{"field in another case", `{"URL":"s3cr3t"}`, `unknown field "URL"`},
		{"duplicate field", `{"url":"s3cr3t","url":"s3cr3t"}`, "field url appears more than once"},
		{"duplicate field after headers", `{"url":"s3cr3t","headers":{"url":"s3cr3t"},"url":"s3cr3t"}`, "field url appears more than once"},
		{"duplicate header", `{"url":"s3cr3t","headers":{"X-A":"s3cr3t","X-A":"s3cr3t"}}`, `header "X-A" appears more than once`},
		{"duplicate header via escape", `{"url":"s3cr3t","headers":{"X-A":"s3cr3t","X\u002dA":"s3cr3t"}}`, `header "X-A" appears more than once`},
		{"duplicate header in another case", `{"url":"s3cr3t","headers":{"X-A":"s3cr3t","x-a":"s3cr3t"}}`, `header "x-a" appears more than once`},
		{"header not a string", `{"url":"s3cr3t","headers":{"X-A":["s3cr3t"]}}`, `header "X-A" must have a string value`},
		{"headers not an object", `{"url":"s3cr3t","headers":["s3cr3t"]}`, "field headers must be an object"},
		{"null url", `{"url":null}`, "field url must be a string, not null"},
		{"url not a string", `{"url":{"s3cr3t":1}}`, "field url must be a string"},
		{"method not a string", `{"url":"s3cr3t","method":["s3cr3t"]}`, "field method must be a string"},
		{"fractional max_length", `{"url":"s3cr3t","max_length":1.5}`, "field max_length must be an integer"},
		{"string start_index", `{"url":"s3cr3t","start_index":"s3cr3t"}`, "field start_index must be an integer"},
		{"missing url", `{"method":"GET"}`, "field url is required"},
		{"too large", `{"url":"s3cr3t` + strings.Repeat(" ", MaxArgsBytes) + `"}`, "larger than 256 KiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.in)
			r, ok := refusal.As(err)
			if !ok || r.Code != refusal.InvalidArguments {
				t.Fatalf("Decode = %v; want an invalid_arguments refusal", err)
			}
			if !strings.Contains(r.Message, tc.want) {
				t.Errorf("message %q; want it to contain %q", r.Message, tc.want)
			}
			if strings.Contains(r.Message+r.Hint, "s3cr3t") {
				t.Errorf("message %q or hint %q quotes a value", r.Message, r.Hint)
			}
		})
	}
}

func TestDecodeArgsManyHeaders(t *testing.T) {
	doc := func(n int) string {
		hs := make([]string, n)
		for i := range hs {
			hs[i] = fmt.Sprintf(`"X-%d":"v"`, i)
		}
		return `{"url":"u","headers":{` + strings.Join(hs, ",") + `}}`
	}
	got, err := Decode(doc(MaxHeaders))
	if err != nil || len(got.Headers) != MaxHeaders {
		t.Fatalf("%d headers: got %d headers, %v; want all, nil", MaxHeaders, len(got.Headers), err)
	}
	if _, err := Decode(doc(MaxHeaders + 1)); refusal.CodeOf(err) != refusal.InvalidArguments {
		t.Errorf("%d headers: got %v; want invalid_arguments", MaxHeaders+1, err)
	}
}

// FuzzDecodeArgs checks Decode (strictjson.Walker) against encoding/json:
// whatever Decode accepts is valid JSON, and encoding/json reads the
// same values from it. Seeds cover escapes, numbers and nesting.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.com/"}`,                 // minimal
		`{"url":"\ud83d\ude00\u00e9\n","method":"post"}`, // escapes
		`{"url":"u","max_length":2e4,"start_index":-0}`,  // number forms
		`{"url":"u","headers":{"A":"1","b":"\"2\""}}`,    // headers
		`{"url":"u","body":null,"format":"raw"}`,         // null optional
		` {"url" : "u" , "headers" : { } } `,             // spacing
		`{"url":"\ud800\udc00\ud800"}`,                   // surrogates
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Decode(in)
		if err != nil {
			if refusal.CodeOf(err) != refusal.InvalidArguments {
				t.Fatalf("error %v is not invalid_arguments", err)
			}
			return
		}
		var ref struct {
			URL        string            `json:"url"`
			Method     *string           `json:"method"`
			Headers    map[string]string `json:"headers"`
			Body       *string           `json:"body"`
			Format     *string           `json:"format"`
			MaxLength  *float64          `json:"max_length"`
			StartIndex *float64          `json:"start_index"`
		}
		if err := json.Unmarshal([]byte(in), &ref); err != nil {
			t.Fatalf("Decode accepted %q, encoding/json refuses it: %v", in, err)
		}
		if ref.URL != got.URL || (ref.Body != nil) != got.HasBody || (ref.Body != nil && *ref.Body != got.Body) ||
			(ref.Method != nil && *ref.Method != got.Method) || (ref.Format != nil && *ref.Format != got.Format) ||
			(ref.MaxLength != nil) != got.HasMaxLen || (ref.MaxLength != nil && math.Abs(*ref.MaxLength) < 1<<53 && int64(*ref.MaxLength) != got.MaxLength) ||
			(ref.StartIndex != nil && math.Abs(*ref.StartIndex) < 1<<53 && int64(*ref.StartIndex) != got.StartIndex) || len(ref.Headers) != len(got.Headers) {
			t.Fatalf("Decode(%q) = %+v; encoding/json reads %+v", in, got, ref)
		}
		for _, h := range got.Headers {
			if ref.Headers[h.Name] != h.Value {
				t.Fatalf("header %q = %q; encoding/json reads %q", h.Name, h.Value, ref.Headers[h.Name])
			}
		}
	})
}

// TestSchema: the schema a model is shown names exactly the fields Decode
// reads, url required, nothing else allowed, and carries the caps given.
func TestSchema(t *testing.T) {
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
		AddProps   bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(Schema(7, 1234), &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	var props []string
	for k := range schema.Properties {
		if !slices.Contains(argsDoc.Keys, k) {
			t.Errorf("schema property %q is not decoded by Decode", k)
		}
		props = append(props, k)
	}
	if len(props) != len(argsDoc.Keys) || schema.Type != "object" || schema.AddProps || !cmp.Equal(schema.Required, []string{"url"}) {
		t.Errorf("schema type %q props %v required %v additionalProperties %v; want object, %d properties, [url], false",
			schema.Type, props, schema.Required, schema.AddProps, len(argsDoc.Keys))
	}
	if got := schema.Properties["timeout"]["maximum"]; got != float64(7) {
		t.Errorf("timeout maximum %v; want the cap 7", got)
	}
	if got := schema.Properties["max_bytes"]["maximum"]; got != float64(1234) {
		t.Errorf("max_bytes maximum %v; want the cap 1234", got)
	}
}
