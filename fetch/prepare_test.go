package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/tool"
)

func p0(art tool.PreparedArtifact) *prepared { return art.(*prepared) }

func TestPrepareCallRequirement(t *testing.T) {
	f, _ := localFetch(t, nil, 8080, 3000)
	tests := []struct {
		name   string
		args   string
		want   capability.Target
		wire   string // the URL the run will send
		method string
		local  bool
	}{
		{"https default port", `{"url": "https://Example.COM./a/b?q=1#frag"}`, capability.MustTarget("example.com", 443), "https://example.com/a/b?q=1", "GET", false},
		{"https explicit port", `{"url": "https://example.com:8443/"}`, capability.MustTarget("example.com", 8443), "https://example.com:8443/", "GET", false},
		{"explicit default port kept", `{"url": "https://example.com:443"}`, capability.MustTarget("example.com", 443), "https://example.com:443", "GET", false},
		{"IDNA host to ASCII", `{"url": "https://Bücher.example/x"}`, capability.MustTarget("xn--bcher-kva.example", 443), "https://xn--bcher-kva.example/x", "GET", false},
		{"public IPv4", `{"url": "https://93.184.216.34/"}`, capability.MustTarget("93.184.216.34", 443), "https://93.184.216.34/", "GET", false},
		{"public IPv6 compressed", `{"url": "https://[2606:2800:0220:0001:0248:1893:25c8:1946]/"}`, capability.MustTarget("2606:2800:220:1:248:1893:25c8:1946", 443), "https://[2606:2800:220:1:248:1893:25c8:1946]/", "GET", false},
		{"post lowercase method", `{"url": "https://example.com/api", "method": "post", "body": "x=1"}`, capability.MustTarget("example.com", 443), "https://example.com/api", "POST", false},
		{"encoded path kept", `{"url": "https://example.com/a%2Fb?x=%20"}`, capability.MustTarget("example.com", 443), "https://example.com/a%2Fb?x=%20", "GET", false},
		{"local http", `{"url": "http://localhost:8080/x"}`, capability.MustTarget("localhost", 8080), "http://localhost:8080/x", "GET", true},
		{"local https", `{"url": "https://127.0.0.1:3000/"}`, capability.MustTarget("127.0.0.1", 3000), "https://127.0.0.1:3000/", "GET", true},
		{"local IPv6 long form", `{"url": "http://[0:0:0:0:0:0:0:1]:8080/"}`, capability.MustTarget("::1", 8080), "http://[::1]:8080/", "GET", true},
		{"local trailing dot upper case", `{"url": "http://LOCALHOST.:3000"}`, capability.MustTarget("localhost", 3000), "http://localhost:3000", "GET", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := uuid.New()
			req, art, err := f.PrepareCall(context.Background(), id, tc.args)
			if err != nil {
				t.Fatalf("PrepareCall: %v", err)
			}
			o := p0(art).origin
			if o.Target != tc.want || o.Scheme != strings.SplitN(tc.wire, ":", 2)[0] {
				t.Errorf("origin %v; want %v over %s", o, tc.want, tc.wire)
			}
			// The summary is AuditSummary's, from the call prepared once.
			want := tool.Request{ExecutionID: id, Tool: "fetch", Requirements: []capability.Requirement{capability.NetworkOrigin(o)}, Summary: f.AuditSummary(tc.args)}
			if diff := cmp.Diff(want, req); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if !req.Grants.Empty() {
				t.Errorf("grants %+v; want the empty pair", req.Grants)
			}
			p := art.(*prepared)
			if got := p.url.String(); got != tc.wire {
				t.Errorf("wire URL %q; want %q", got, tc.wire)
			}
			if p.method != tc.method || p.local != tc.local || p.id != id {
				t.Errorf("method %q local %v id %v; want %q %v %v", p.method, p.local, p.id, tc.method, tc.local, id)
			}
		})
	}
}

func TestPrepareCallDefaults(t *testing.T) {
	f := NewFetch(nil, nil)
	_, art, err := f.PrepareCall(context.Background(), uuid.New(), `{"url": "https://example.com"}`)
	if err != nil {
		t.Fatal(err)
	}
	p := art.(*prepared)
	if p.method != "GET" || p.format != content.Markdown || p.maxLength != fetchargs.DefaultMaxLength || p.startIndex != 0 || p.hasBody || p.header != nil {
		t.Errorf("got method %q format %q max_length %d start_index %d body %v headers %v; want GET markdown %d 0 false nil",
			p.method, p.format, p.maxLength, p.startIndex, p.hasBody, p.header, fetchargs.DefaultMaxLength)
	}
	f = NewFetch(nil, &Options{DefaultMaxLength: 500})
	_, art, _ = f.PrepareCall(context.Background(), uuid.New(), `{"url": "https://example.com", "format": "TEXT", "start_index": 7, "headers": {"accept": "text/plain", "x-token": "v"}}`)
	p = art.(*prepared)
	wantH := http.Header{"Accept": {"text/plain"}, "X-Token": {"v"}}
	if p.maxLength != 500 || p.format != content.Text || p.startIndex != 7 || !cmp.Equal(p.header, wantH) {
		t.Errorf("got max_length %d format %q start_index %d headers %v; want 500 text 7 %v", p.maxLength, p.format, p.startIndex, p.header, wantH)
	}
}

// TestPrepareCallLimits: timeout and max_bytes default to the Fetch's caps
// and may only lower them.
func TestPrepareCallLimits(t *testing.T) {
	f := NewFetch(nil, &Options{Timeout: 20 * time.Second, MaxBodyBytes: 1000})
	tests := []struct {
		name        string
		args        string
		wantTimeout time.Duration
		wantMax     int64
	}{
		{"defaults are the caps", `{"url": "https://example.com"}`, 20 * time.Second, 1000},
		{"lower", `{"url": "https://example.com", "timeout": 5, "max_bytes": 10}`, 5 * time.Second, 10},
		{"at the caps", `{"url": "https://example.com", "timeout": 20, "max_bytes": 1000}`, 20 * time.Second, 1000},
		{"null is absent", `{"url": "https://example.com", "timeout": null, "max_bytes": null}`, 20 * time.Second, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, art, err := f.PrepareCall(context.Background(), uuid.New(), tc.args)
			if err != nil {
				t.Fatal(err)
			}
			p := art.(*prepared)
			if p.timeout != tc.wantTimeout || p.maxBody != tc.wantMax {
				t.Errorf("timeout %v max_bytes %d; want %v %d", p.timeout, p.maxBody, tc.wantTimeout, tc.wantMax)
			}
		})
	}
	for _, args := range []string{`{"url": "https://example.com", "timeout": 21}`, `{"url": "https://example.com", "max_bytes": 1001}`} {
		_, _, err := f.PrepareCall(context.Background(), uuid.New(), args)
		if r, ok := refusal.As(err); !ok || r.Code != refusal.InvalidArguments || !strings.Contains(r.Message, "the server's cap") {
			t.Errorf("PrepareCall(%s) = %v; want invalid_arguments naming the server's cap", args, err)
		}
	}
}

func TestPrepareCallRefusals(t *testing.T) {
	ws := newWorkspace(t, 8080)
	permissive := newFetch(nil, &Options{}, ws, risk.Permissive)
	standard := newFetch(nil, &Options{}, ws, risk.Standard)
	noFile := newFetch(nil, &Options{}, newWorkspace(t), risk.Permissive)
	many := make([]string, 0, 40)
	for i := range 33 {
		many = append(many, `"X-H`+strings.Repeat("a", i)+`": "v"`)
	}
	tests := []struct {
		name string
		f    *Fetch
		args string
		want refusal.Code
	}{
		{"empty", permissive, ``, refusal.InvalidArguments},
		{"not an object", permissive, `["https://example.com"]`, refusal.InvalidArguments},
		{"string", permissive, `"https://example.com"`, refusal.InvalidArguments},
		{"null document", permissive, `null`, refusal.InvalidArguments},
		{"missing url", permissive, `{"method": "GET"}`, refusal.InvalidArguments},
		{"null url", permissive, `{"url": null}`, refusal.InvalidArguments},
		{"url wrong type", permissive, `{"url": 42}`, refusal.InvalidArguments},
		{"url object", permissive, `{"url": {"a": 1}}`, refusal.InvalidArguments},
		{"unknown field", permissive, `{"url": "https://example.com", "retries": 5}`, refusal.InvalidArguments},
		{"timeout 0", permissive, `{"url": "https://example.com", "timeout": 0}`, refusal.InvalidArguments},
		{"timeout over the cap", permissive, `{"url": "https://example.com", "timeout": 31}`, refusal.InvalidArguments},
		{"timeout not an integer", permissive, `{"url": "https://example.com", "timeout": "5"}`, refusal.InvalidArguments},
		{"max_bytes 0", permissive, `{"url": "https://example.com", "max_bytes": 0}`, refusal.InvalidArguments},
		{"max_bytes over the cap", permissive, `{"url": "https://example.com", "max_bytes": 5242881}`, refusal.InvalidArguments},
		{"field case differs", permissive, `{"URL": "https://example.com"}`, refusal.InvalidArguments},
		{"duplicate url", permissive, `{"url": "https://example.com", "url": "https://evil.example"}`, refusal.InvalidArguments},
		{"duplicate method", permissive, `{"url": "https://example.com", "method": "GET", "method": "POST"}`, refusal.InvalidArguments},
		{"duplicate header", permissive, `{"url": "https://example.com", "headers": {"X-A": "1", "x-a": "2"}}`, refusal.InvalidArguments},
		{"trailing object", permissive, `{"url": "https://example.com"}{"url": "https://evil.example"}`, refusal.InvalidArguments},
		{"trailing garbage", permissive, `{"url": "https://example.com"} x`, refusal.InvalidArguments},
		{"truncated", permissive, `{"url": "https://example.com"`, refusal.InvalidArguments},
		{"too large", permissive, `{"url": "https://example.com", "body": "` + strings.Repeat("a", fetchargs.MaxArgsBytes) + `"}`, refusal.InvalidArguments},
		{"method PUT", permissive, `{"url": "https://example.com", "method": "PUT"}`, refusal.InvalidArguments},
		{"method wrong type", permissive, `{"url": "https://example.com", "method": 1}`, refusal.InvalidArguments},
		{"body with GET", permissive, `{"url": "https://example.com", "body": "x"}`, refusal.InvalidArguments},
		{"body too large", permissive, `{"url": "https://example.com", "method": "POST", "body": "` + strings.Repeat("a", fetchargs.MaxRequestBodyBytes+1) + `"}`, refusal.InvalidArguments},
		{"headers array", permissive, `{"url": "https://example.com", "headers": ["a"]}`, refusal.InvalidArguments},
		{"header value number", permissive, `{"url": "https://example.com", "headers": {"X-A": 1}}`, refusal.InvalidArguments},
		{"header Host", permissive, `{"url": "https://example.com", "headers": {"host": "evil.example"}}`, refusal.InvalidArguments},
		{"header Connection", permissive, `{"url": "https://example.com", "headers": {"Connection": "close"}}`, refusal.InvalidArguments},
		{"header Transfer-Encoding", permissive, `{"url": "https://example.com", "headers": {"Transfer-Encoding": "chunked"}}`, refusal.InvalidArguments},
		{"header Proxy-Authorization", permissive, `{"url": "https://example.com", "headers": {"Proxy-Authorization": "x"}}`, refusal.InvalidArguments},
		{"header Proxy-Anything", permissive, `{"url": "https://example.com", "headers": {"proxy-foo": "x"}}`, refusal.InvalidArguments},
		{"header TE", permissive, `{"url": "https://example.com", "headers": {"TE": "trailers"}}`, refusal.InvalidArguments},
		{"header Accept-Encoding", permissive, `{"url": "https://example.com", "headers": {"Accept-Encoding": "br"}}`, refusal.InvalidArguments},
		{"header bad name", permissive, `{"url": "https://example.com", "headers": {"X A": "1"}}`, refusal.InvalidArguments},
		{"header CRLF value", permissive, `{"url": "https://example.com", "headers": {"X-A": "1\r\nHost: evil"}}`, refusal.InvalidArguments},
		{"header NUL value", permissive, `{"url": "https://example.com", "headers": {"X-A": "a\u0000b"}}`, refusal.InvalidArguments},
		{"header value too long", permissive, `{"url": "https://example.com", "headers": {"X-A": "` + strings.Repeat("v", fetchargs.MaxHeaderValueBytes+1) + `"}}`, refusal.InvalidArguments},
		{"headers too large in total", permissive, `{"url": "https://example.com", "headers": {"X-A": "` + strings.Repeat("v", 8000) + `", "X-B": "` + strings.Repeat("v", 8000) + `", "X-C": "` + strings.Repeat("v", 8000) + `", "X-D": "` + strings.Repeat("v", 8000) + `", "X-E": "` + strings.Repeat("v", 8000) + `"}}`, refusal.InvalidArguments},
		{"too many headers", permissive, `{"url": "https://example.com", "headers": {` + strings.Join(many, ",") + `}}`, refusal.InvalidArguments},
		{"format unknown", permissive, `{"url": "https://example.com", "format": "pdf"}`, refusal.InvalidArguments},
		{"max_length zero", permissive, `{"url": "https://example.com", "max_length": 0}`, refusal.InvalidArguments},
		{"max_length too big", permissive, `{"url": "https://example.com", "max_length": 1000001}`, refusal.InvalidArguments},
		{"max_length fraction", permissive, `{"url": "https://example.com", "max_length": 1.5}`, refusal.InvalidArguments},
		{"max_length string", permissive, `{"url": "https://example.com", "max_length": "10"}`, refusal.InvalidArguments},
		{"start_index negative", permissive, `{"url": "https://example.com", "start_index": -1}`, refusal.InvalidArguments},
		{"start_index huge", permissive, `{"url": "https://example.com", "start_index": 1e300}`, refusal.InvalidArguments},
		{"url not parseable", permissive, `{"url": "https://exa mple.com/"}`, refusal.InvalidArguments},
		{"url relative", permissive, `{"url": "/etc/passwd"}`, refusal.InvalidArguments},
		{"url scheme-relative", permissive, `{"url": "//example.com/"}`, refusal.InvalidArguments},
		{"url opaque", permissive, `{"url": "https:example.com"}`, refusal.InvalidArguments},
		{"url no host", permissive, `{"url": "https:///path"}`, refusal.InvalidArguments},
		{"url too long", permissive, `{"url": "https://example.com/` + strings.Repeat("a", fetchargs.MaxURLBytes) + `"}`, refusal.InvalidArguments},
		{"port zero", permissive, `{"url": "https://example.com:0/"}`, refusal.InvalidArguments},
		{"port too big", permissive, `{"url": "https://example.com:65536/"}`, refusal.InvalidArguments},
		{"file scheme", permissive, `{"url": "file:///etc/passwd"}`, refusal.SchemeNotAllowed},
		{"ftp scheme", permissive, `{"url": "ftp://example.com/"}`, refusal.SchemeNotAllowed},
		{"gopher scheme", permissive, `{"url": "gopher://example.com:70/"}`, refusal.SchemeNotAllowed},
		{"data scheme", permissive, `{"url": "data:text/plain,hello"}`, refusal.SchemeNotAllowed},
		{"javascript scheme", permissive, `{"url": "javascript:alert(1)"}`, refusal.SchemeNotAllowed},
		{"credentials", permissive, `{"url": "https://user:pass@example.com/"}`, refusal.CredentialsInURL},
		{"user only", permissive, `{"url": "https://user@example.com/"}`, refusal.CredentialsInURL},
		{"local credentials", permissive, `{"url": "http://user:pass@localhost:8080/"}`, refusal.CredentialsInURL},
		{"http public", permissive, `{"url": "http://example.com/"}`, refusal.HTTPSRequired},
		{"invalid host", permissive, `{"url": "https://exa_mple..com/"}`, refusal.InvalidHost},
		{"look-alike local host", permissive, `{"url": "http://１２７.０.０.１:8080/"}`, refusal.InvalidHost},
		{"look-alike localhost", permissive, `{"url": "http://localho\u017ft:8080/"}`, refusal.InvalidHost},
		{"shell metacharacters in host", permissive, `{"url": "https://x;touch$IFS\"pwned\";$(id>p)<a>b.example/"}`, refusal.InvalidHost},
		{"percent byte not UTF-8", permissive, `{"url": "https://%80.example/"}`, refusal.InvalidHost},
		{"non-canonical IPv4", permissive, `{"url": "http://127.1:8080/"}`, refusal.InvalidHost},
		{"hex IPv4", permissive, `{"url": "http://0x7f000001:8080/"}`, refusal.InvalidHost},
		{"IPv6 zone", permissive, `{"url": "http://[fe80::1%25eth0]:8080/"}`, refusal.InvalidHost},
		{"127.0.0.2", permissive, `{"url": "http://127.0.0.2:8080/"}`, refusal.AddressNotPublic},
		{"127.0.0.2 https", permissive, `{"url": "https://127.0.0.2/"}`, refusal.AddressNotPublic},
		{"mapped loopback", permissive, `{"url": "http://[::ffff:127.0.0.1]:8080/"}`, refusal.AddressNotPublic},
		{"0.0.0.0", permissive, `{"url": "http://0.0.0.0:8080/"}`, refusal.AddressNotPublic},
		{"unspecified v6", permissive, `{"url": "http://[::]:8080/"}`, refusal.AddressNotPublic},
		{"metadata", permissive, `{"url": "https://169.254.169.254/latest/meta-data/"}`, refusal.AddressNotPublic},
		{"RFC 1918", permissive, `{"url": "https://10.0.0.1/"}`, refusal.AddressNotPublic},
		{"ULA metadata v6", permissive, `{"url": "https://[fd00:ec2::254]/"}`, refusal.AddressNotPublic},
		{"NAT64 loopback", permissive, `{"url": "https://[64:ff9b::7f00:1]/"}`, refusal.AddressNotPublic},
		{"local port missing", permissive, `{"url": "http://localhost/"}`, refusal.LocalPortMissing},
		{"local port empty", permissive, `{"url": "http://localhost:/"}`, refusal.LocalPortMissing},
		{"local port not allowed", permissive, `{"url": "http://localhost:9999/"}`, refusal.LocalPortNotAllowed},
		{"local not permissive", standard, `{"url": "http://localhost:8080/"}`, refusal.LocalProfileNotPermissive},
		{"local https not permissive", standard, `{"url": "https://[::1]:8080/"}`, refusal.LocalProfileNotPermissive},
		{"local allowlist missing", noFile, `{"url": "http://127.0.0.1:8080/"}`, refusal.LocalAllowlistMissing},
		{"zero options local", NewFetch(nil, nil), `{"url": "http://localhost:8080/"}`, refusal.LocalProfileNotPermissive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, art, err := tc.f.PrepareCall(context.Background(), uuid.New(), tc.args)
			if err == nil {
				// Parsed: the refusal is the decision step's.
				err = decide(context.Background(), tc.f, req)
				wantCode(t, err, tc.want)
				return
			}
			wantCode(t, err, tc.want)
			if art != nil || req.Requirements != nil {
				t.Errorf("refused call returned artifact %v and requirements %v; want none", art, req.Requirements)
			}
		})
	}
}

// TestPrepareCallRefusalNamesNoValue checks that refusal messages name a
// header by its name but never echo a value, path, query or body.
func TestPrepareCallRefusalNamesNoValue(t *testing.T) {
	f, _ := localFetch(t, nil, 8080)
	const secret = "SECRETVALUE"
	tests := []struct{ name, args, wantIn string }{
		{"crlf header", `{"url": "https://example.com/` + secret + `", "headers": {"X-Api-Key": "` + secret + `\r\n"}}`, "X-Api-Key"},
		{"host header", `{"url": "https://example.com/?q=` + secret + `", "headers": {"Host": "` + secret + `"}}`, "Host"},
		{"body with GET", `{"url": "https://example.com/` + secret + `", "body": "` + secret + `"}`, "POST"},
		{"credentials", `{"url": "https://u:` + secret + `@example.com/` + secret + `"}`, "credentials"},
		{"http public", `{"url": "http://example.com/` + secret + `?` + secret + `"}`, "example.com"},
		{"bad port", `{"url": "http://localhost:9999/` + secret + `"}`, "9999"},
		{"not public", `{"url": "https://10.1.2.3/` + secret + `"}`, "10.1.2.3"},
		{"syntax", `{"url": "https://example.com/` + secret + `" x}`, "JSON"},
		{"type", `{"url": "https://example.com/", "max_length": "` + secret + `"}`, "max_length"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := prepareAndDecide(context.Background(), f, tc.args)
			r, ok := refusal.As(err)
			if !ok {
				t.Fatalf("got %v; want a refusal", err)
			}
			text := r.Message + " " + r.Hint + " " + r.Error()
			if strings.Contains(text, secret) {
				t.Errorf("refusal %q echoes the secret", text)
			}
			if !strings.Contains(text, tc.wantIn) {
				t.Errorf("refusal %q does not name %q", text, tc.wantIn)
			}
		})
	}
}

// TestPrepareCallReadsAllowlistEveryCall: an edit of local_fetch.json takes
// effect at the next decision (no caching).
func TestPrepareCallReadsAllowlistEveryCall(t *testing.T) {
	f, ws := localFetch(t, nil, 8080)
	args := `{"url": "http://localhost:8080/"}`
	if _, _, err := prepareAndDecide(context.Background(), f, args); err != nil {
		t.Fatalf("allowed port: %v", err)
	}
	writeAllowlist(t, ws, 3000)
	_, _, err := prepareAndDecide(context.Background(), f, args)
	wantCode(t, err, refusal.LocalPortNotAllowed)
}

func TestAuditSummary(t *testing.T) {
	f := NewFetch(nil, nil)
	tests := []struct{ name, args, want string }{
		{"get", `{"url": "https://example.com/secret/path?token=abc"}`, "GET example.com"},
		{"post lower", `{"url": "https://Example.com:8443/x", "method": "post", "body": "secret"}`, "POST example.com"},
		{"other method", `{"url": "https://example.com/", "method": "DELETE"}`, "FETCH example.com"},
		{"idna", `{"url": "https://Bücher.example/"}`, "GET xn--bcher-kva.example"},
		{"ipv6", `{"url": "http://[0:0::1]:8080/a"}`, "GET ::1"},
		{"credentials never", `{"url": "https://user:pw@example.com/"}`, "GET example.com"},
		{"refused call still summarised", `{"url": "ftp://files.example/x", "headers": {"Host": "h"}}`, "GET files.example"},
		{"no url", `{"method": "GET"}`, "GET <unparseable url>"},
		{"relative url", `{"url": "/secret/path"}`, "GET <unparseable url>"},
		{"bad url", `{"url": "https://exa mple.com/secret"}`, "GET <unparseable url>"},
		{"bad host", `{"url": "https://127.1/secret"}`, "GET <unparseable url>"},
		{"opaque", `{"url": "mailto:secret@example.com"}`, "GET <mailto url without host>"},
		{"file", `{"url": "file:///etc/secret"}`, "GET <file url without host>"},
		{"odd scheme", `{"url": "Fi+le:///etc/secret"}`, "GET <unparseable url>"},
		{"not json", `secret`, "FETCH <unparseable arguments>"},
		{"url wrong type", `{"url": ["secret"]}`, "FETCH <unparseable arguments>"},
		{"empty", ``, "FETCH <unparseable arguments>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.AuditSummary(tc.args); got != tc.want {
				t.Errorf("AuditSummary(%s) = %q; want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestInfo(t *testing.T) {
	info, err := NewFetch(nil, nil).Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "fetch" || info.Description == "" {
		t.Errorf("name %q description %q; want fetch and a description", info.Name, info.Description)
	}
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
		AddProps   bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(info.InputSchema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	var props []string
	for k := range schema.Properties {
		if _, err := fetchargs.Decode(`{"url": "u", "` + k + `": null}`); k != "url" && err != nil {
			t.Errorf("schema property %q is not decoded by PrepareCall: %v", k, err)
		}
		props = append(props, k)
	}
	if len(props) != 9 || schema.Type != "object" || schema.AddProps || !cmp.Equal(schema.Required, []string{"url"}) {
		t.Errorf("schema type %q props %v required %v additionalProperties %v; want object, 9 properties, [url], false",
			schema.Type, props, schema.Required, schema.AddProps)
	}
}

// TestNameIsInfoName: the name the broker audits (tool.Named) is the one
// Info gives a model, whatever the options.
func TestNameIsInfoName(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxBodyBytes: 1 << 10, Timeout: time.Second}} {
		f := NewFetch(nil, opts)
		info, err := f.Info(context.Background())
		if err != nil || info.Name != f.Name() || tool.NameOf(context.Background(), f) != Name {
			t.Errorf("Info().Name = %q (%v), Name() = %q; want both %q", info.Name, err, f.Name(), Name)
		}
	}
}

// TestPrepareCallBoundsNamed: a number outside its field's range is
// refused with a message naming the range it must be in, so the caller
// (a model, over MCP) can correct it; the CLI's flags say the same
// (`--start-index must be from 0 to 2147483647`).
func TestPrepareCallBoundsNamed(t *testing.T) {
	f := newFetch(nil, &Options{}, newWorkspace(t, 8080), risk.Permissive)
	tests := []struct {
		name, args, want string
	}{
		{"start_index negative", `{"url": "https://example.com", "start_index": -1}`, "field start_index must be an integer from 0 to 2147483647"},
		{"start_index past int32", `{"url": "https://example.com", "start_index": 2147483648}`, "field start_index must be an integer from 0 to 2147483647"},
		{"max_length zero", `{"url": "https://example.com", "max_length": 0}`, "field max_length must be an integer from 1 to 1000000"},
		{"max_length too big", `{"url": "https://example.com", "max_length": 1000001}`, "field max_length must be an integer from 1 to 1000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.PrepareCall(context.Background(), uuid.New(), tc.args)
			wantCode(t, err, refusal.InvalidArguments)
			if r, _ := refusal.As(err); r.Message != tc.want {
				t.Errorf("message %q; want %q", r.Message, tc.want)
			}
		})
	}
	// At the bound itself it is accepted.
	if _, _, err := f.PrepareCall(context.Background(), uuid.New(), `{"url": "https://example.com", "start_index": 2147483647}`); err != nil {
		t.Errorf("start_index 2147483647: %v; want accepted", err)
	}
}

// TestInfoDefaultsAreTheCallsDefaults: what the input schema (and the
// description) tell a model a call gets when it leaves max_length,
// timeout or max_bytes out is what PrepareCall then uses, whatever the
// server's options (ocfetch mcp --max-length, --timeout, --max-bytes).
func TestInfoDefaultsAreTheCallsDefaults(t *testing.T) {
	for _, opts := range []*Options{nil, {DefaultMaxLength: 50, Timeout: 10 * time.Second, MaxBodyBytes: 1000}} {
		f := NewFetch(nil, opts)
		info, err := f.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(info.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		_, art, err := f.PrepareCall(context.Background(), uuid.New(), `{"url": "https://example.com"}`)
		if err != nil {
			t.Fatal(err)
		}
		p := art.(*prepared)
		got := map[string]any{
			"max_length": schema.Properties["max_length"].Default,
			"timeout":    schema.Properties["timeout"].Default,
			"max_bytes":  schema.Properties["max_bytes"].Default,
		}
		want := map[string]any{
			"max_length": float64(p.maxLength),
			"timeout":    float64(p.timeout / time.Second),
			"max_bytes":  float64(p.maxBody),
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("options %+v: schema defaults (-what a call gets +what the schema says):\n%s", opts, d)
		}
		for _, s := range []string{
			fmt.Sprintf("windows of max_length characters (default %d)", p.maxLength),
			fmt.Sprintf("capped (%s by default)", map[int64]string{DefaultMaxBodyBytes: "5 MiB", 1000: "1000 bytes"}[p.maxBody]),
		} {
			if !strings.Contains(info.Description, s) {
				t.Errorf("options %+v: description does not say %q:\n%s", opts, s, info.Description)
			}
		}
	}
}
