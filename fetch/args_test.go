package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ocfetch/ocfetch/policy"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want args
	}{
		{"url only", `{"url":"https://example.com"}`, args{URL: "https://example.com"}},
		{"whitespace around", " \n\t{\"url\": \"u\"} \n", args{URL: "u"}},
		{"all fields", `{"url":"u","method":"POST","headers":{"A":"1","b":"2"},"body":"x","format":"text","max_length":5,"start_index":3}`,
			args{URL: "u", Method: "POST", Headers: []header{{"A", "1"}, {"b", "2"}}, Body: "x", HasBody: true, Format: "text", MaxLength: 5, HasMaxLen: true, StartIndex: 3}},
		{"nulls are absent", `{"url":"u","method":null,"headers":null,"body":null,"format":null,"max_length":null,"start_index":null}`, args{URL: "u"}},
		{"empty body is a body", `{"url":"u","body":""}`, args{URL: "u", HasBody: true}},
		{"integral float", `{"url":"u","max_length":2e4,"start_index":10.0}`, args{URL: "u", MaxLength: 20000, HasMaxLen: true, StartIndex: 10}},
		{"escapes decoded", `{"url":"https://example.com/\u00e9"}`, args{URL: "https://example.com/é"}},
		{"empty headers", `{"url":"u","headers":{}}`, args{URL: "u"}},
		{"escapes", `{"url":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9"}`, args{URL: "a\"b\\c/d\b\f\n\r\tAé"}},
		{"surrogate pair", `{"url":"\ud83d\ude00"}`, args{URL: "😀"}},
		{"lone surrogate", `{"url":"\ud83dx"}`, args{URL: "\ufffdx"}},
		{"high then non-low", `{"url":"\ud83d\u0041"}`, args{URL: "\ufffdA"}},
		{"escaped key", `{"u\u0072l":"u"}`, args{URL: "u"}},
		{"negative zero start", `{"url":"u","start_index":-0}`, args{URL: "u"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeArgs(tc.in)
			if err != nil {
				t.Fatalf("decodeArgs: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(header{})); diff != "" {
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
			got, err := decodeArgs(tc.in)
			if refusal.CodeOf(err) != refusal.InvalidArguments {
				t.Errorf("decodeArgs(%q) = %+v, %v; want invalid_arguments", tc.in, got, err)
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
			_, err := decodeArgs(tc.in)
			r, ok := refusal.As(err)
			if !ok || r.Code != refusal.InvalidArguments {
				t.Fatalf("decodeArgs = %v; want an invalid_arguments refusal", err)
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
	got, err := decodeArgs(doc(MaxHeaders))
	if err != nil || len(got.Headers) != MaxHeaders {
		t.Fatalf("%d headers: got %d headers, %v; want all, nil", MaxHeaders, len(got.Headers), err)
	}
	if _, err := decodeArgs(doc(MaxHeaders + 1)); refusal.CodeOf(err) != refusal.InvalidArguments {
		t.Errorf("%d headers: got %v; want invalid_arguments", MaxHeaders+1, err)
	}
}

// FuzzDecodeArgs checks decodeArgs (strictjson.Walker) against encoding/json:
// whatever decodeArgs accepts is valid JSON, and encoding/json reads the
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
		got, err := decodeArgs(in)
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
			t.Fatalf("decodeArgs accepted %q, encoding/json refuses it: %v", in, err)
		}
		if ref.URL != got.URL || (ref.Body != nil) != got.HasBody || (ref.Body != nil && *ref.Body != got.Body) ||
			(ref.Method != nil && *ref.Method != got.Method) || (ref.Format != nil && *ref.Format != got.Format) ||
			(ref.MaxLength != nil) != got.HasMaxLen || (ref.MaxLength != nil && math.Abs(*ref.MaxLength) < 1<<53 && int64(*ref.MaxLength) != got.MaxLength) ||
			(ref.StartIndex != nil && math.Abs(*ref.StartIndex) < 1<<53 && int64(*ref.StartIndex) != got.StartIndex) || len(ref.Headers) != len(got.Headers) {
			t.Fatalf("decodeArgs(%q) = %+v; encoding/json reads %+v", in, got, ref)
		}
		for _, h := range got.Headers {
			if ref.Headers[h.name] != h.value {
				t.Fatalf("header %q = %q; encoding/json reads %q", h.name, h.value, ref.Headers[h.name])
			}
		}
	})
}

// FuzzPrepareCall feeds arbitrary argument documents to PrepareCall. It must
// never panic; it either refuses with a *refusal.Error or returns exactly
// one network requirement whose target matches the artifact, with an empty
// grant pair. AuditSummary must never panic either and never contain the
// query or fragment of the URL.
func FuzzPrepareCall(f *testing.F) {
	seeds := []string{
		`{"url": "https://example.com/"}`,                                             // the common case
		`{"url": "http://localhost:8080/x", "method": "post", "body": "a"}`,           // local mode candidate
		`{"url": "https://example.com", "url": "https://evil.example"}`,               // duplicate key
		`{"url": "https://example.com"} {}`,                                           // trailing data
		`{"url": "https://example.com", "headers": {"A": "1", "a": "2"}}`,             // duplicate header
		`{"url": "https://u:p@example.com/"}`,                                         // credentials
		`{"url": "http://[::ffff:127.0.0.1]:80/"}`,                                    // mapped loopback
		`{"url": "https://１２７.０.０.１:1/"}`,                                             // full-width digits
		`{"url": "https://example.com/", "max_length": 1e999}`,                        // huge number
		`{"url": "https://example.com/", "headers": {"X": "a\r\nb"}}`,                 // header injection
		`{"url": "https://[fe80::1%25en0]/"}`,                                         // zone
		`{"url": "https:\\\\example.com\\path"}`,                                      // backslashes
		`{"url":"https://example.com","format":"RAW","start_index":0,"max_length":1}`, // bounds
		`{"url": "https://example.com", "headers": {"Proxy-X": ""}}`,                  // proxy header
	}
	for _, s := range seeds {
		f.Add(s)
	}
	fe := newFetch(nil, &Options{}, newWorkspace(f, 1, 80, 443, 3000, 8080), risk.Permissive)
	f.Fuzz(func(t *testing.T, in string) {
		_ = fe.AuditSummary(in)
		req, art, err := fe.PrepareCall(context.Background(), uuid.Nil, in)
		var raw struct{ URL string }
		_ = json.Unmarshal([]byte(in), &raw)
		if err != nil {
			r, ok := refusal.As(err)
			if !ok {
				t.Fatalf("error %T %v is not a refusal", err, err)
			}
			if (r.Code == refusal.LocalPortMissing || r.Code == refusal.LocalPortNotAllowed) && !isLocalURL(raw.URL) {
				t.Fatalf("local refusal %v for %q, which is not a local URL", r, raw.URL)
			}
			return
		}
		p := art.(*prepared)
		if p.local != isLocalURL(raw.URL) {
			t.Fatalf("local %v for %q; a local URL: %v", p.local, raw.URL, !p.local)
		}
		if len(req.Requirements) != 1 || req.Requirements[0].Target != p.target || !req.Grants.Empty() {
			t.Fatalf("request %+v for target %v; want one requirement for it and no grants", req, p.target)
		}
		if p.url.User != nil || p.url.Fragment != "" || p.url.Hostname() != p.target.Host() {
			t.Fatalf("wire URL %q: userinfo, fragment or host differs from %q", p.url, p.target.Host())
		}
		if d := policy.Decide(context.Background(), policy.Args{Origin: req.Requirements[0].Origin(), Workspace: scopeOf(fe).ws, Profile: scopeOf(fe).profile, Layers: layersFor(scopeOf(fe).ws)}); d.Result != policy.Deny && !p.local && p.scheme != "https" {
			t.Fatalf("public target %v over %s: decided %v", p.target, p.scheme, d)
		}
		if s := fe.AuditSummary(in); strings.ContainsAny(s, "/?#@") && !strings.Contains(s, "<") {
			t.Fatalf("AuditSummary %q carries more than method and host", s)
		}
	})
}

// isLocalURL: an http(s) URL whose host normalises to one of the three
// local hosts (seed 000's is_local_target).
func isLocalURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h, err := capability.NormalizeHost(u.Hostname())
	return err == nil && !strings.HasSuffix(h, ".") && capability.IsLocalHost(h)
}

// TestArgsDocument: the Args a caller marshals has exactly the keys the
// tool decodes, in the same order, and every field it sets decodes back
// to its value; an Args with only a URL is just {"url": …}.
func TestArgsDocument(t *testing.T) {
	var keys []string
	ty := reflect.TypeOf(Args{})
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	if diff := cmp.Diff(argsDoc.Keys, keys); diff != "" {
		t.Errorf("Args's keys differ from the tool's (-tool +Args):\n%s", diff)
	}

	body, maxLen, start, timeout, maxBytes := `{"q":"\u2028"}`, 5, 3, 7, int64(1000)
	doc, err := Args{URL: "https://example.com/?a=\"b\"", Method: "POST", Headers: map[string]string{"X-A": "1"},
		Body: &body, Format: "text", MaxLength: &maxLen, StartIndex: &start, Timeout: &timeout, MaxBytes: &maxBytes}.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeArgs(doc)
	if err != nil {
		t.Fatalf("decodeArgs(%s): %v", doc, err)
	}
	want := args{URL: "https://example.com/?a=\"b\"", Method: "POST", Headers: []header{{"X-A", "1"}}, Body: body, HasBody: true,
		Format: "text", MaxLength: 5, HasMaxLen: true, StartIndex: 3, Timeout: 7, HasTimeout: true, MaxBytes: 1000, HasMaxBytes: true}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(header{})); diff != "" {
		t.Errorf("%s decodes to (-want +got):\n%s", doc, diff)
	}

	if doc, err := (Args{URL: "u"}).JSON(); err != nil || doc != `{"url":"u"}` {
		t.Errorf("Args{URL: \"u\"}.JSON() = %s, %v; want {\"url\":\"u\"}", doc, err)
	}
}
