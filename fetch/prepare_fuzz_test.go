package fetch

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
)

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
