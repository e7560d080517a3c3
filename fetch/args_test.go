package fetch

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/refusal"
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
	fe := NewFetch(nil, nil)
	f.Fuzz(func(t *testing.T, in string) {
		_ = fe.AuditSummary(in)
		req, art, err := fe.PrepareCall(context.Background(), uuid.Nil, in)
		if err != nil {
			if _, ok := refusal.As(err); !ok {
				t.Fatalf("error %T %v is not a refusal", err, err)
			}
			return
		}
		p := art.(*prepared)
		if len(req.Requirements) != 1 || req.Requirements[0].Target != p.target || !req.Grants.Empty() {
			t.Fatalf("request %+v for target %v; want one requirement for it and no grants", req, p.target)
		}
		if p.url.User != nil || p.url.Fragment != "" || p.url.Hostname() != p.target.Host {
			t.Fatalf("wire URL %q: userinfo, fragment or host differs from %q", p.url, p.target.Host)
		}
		if !p.local && p.scheme != "https" {
			t.Fatalf("public target %v over %s", p.target, p.scheme)
		}
		if s := fe.AuditSummary(in); strings.ContainsAny(s, "/?#@") && !strings.Contains(s, "<") {
			t.Fatalf("AuditSummary %q carries more than method and host", s)
		}
	})
}
