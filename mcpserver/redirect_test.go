package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestRedirectToThroughMCP: a refused off-target redirect — another host,
// another scheme, another port — is an error result whose text ends with
// "redirect_to: LOCATION" and whose structured content (matching the
// output schema) has redirect_to and the redirect response's status, so
// the model can make a new call for it, decided on its own. The audit log
// keeps the summary only: no path or query of the Location.
func TestRedirectToThroughMCP(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	mux := http.NewServeMux()
	mux.Handle("/cross", http.RedirectHandler("https://www.example.com/secret-path?token=secret-tok", http.StatusMovedPermanently))
	mux.Handle("/scheme", http.RedirectHandler("http://example.com/secret-path?token=secret-tok", http.StatusFound))
	mux.Handle("/port", http.RedirectHandler("https://example.com:8443/secret-path?token=secret-tok", http.StatusTemporaryRedirect))
	pub := testnet.StartPublicTLS(t, mux, &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	eo := &egress.Options{
		Resolver: testnet.Resolver{"example.com": {public}, "www.example.com": {public}},
		Dial:     pub.Dial,
		RootCAs:  pub.RootCAs,
	}
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: eo}, clientSpec{})

	tests := []struct {
		path, want string
		status     int
	}{
		{"/cross", "https://www.example.com/secret-path?token=secret-tok", 301},
		{"/scheme", "http://example.com/secret-path?token=secret-tok", 302},
		{"/port", "https://example.com:8443/secret-path?token=secret-tok", 307},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res := callFetch(t, cs, `{"url": "https://example.com`+tc.path+`"}`)
			if !res.IsError || !strings.HasPrefix(text(res), "redirect_off_target: ") || !strings.HasSuffix(text(res), "\nredirect_to: "+tc.want) {
				t.Fatalf("isError %v, text %q; want redirect_off_target ending in redirect_to: %s", res.IsError, text(res), tc.want)
			}
			validateOutput(t, res.StructuredContent)
			var got struct {
				Status     int    `json:"status"`
				URL        string `json:"url"`
				RedirectTo string `json:"redirect_to"`
			}
			remarshal(t, res.StructuredContent, &got)
			if got.RedirectTo != tc.want || got.Status != tc.status || got.URL != "https://example.com"+tc.path {
				t.Errorf("structured %+v; want status %d from https://example.com%s, redirect_to %q", got, tc.status, tc.path, tc.want)
			}
		})
	}
	raw, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != len(tests) {
		t.Errorf("audit log has %d lines; want %d", len(lines), len(tests))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) || strings.Contains(l, "secret") || strings.Contains(l, ":8443") || !strings.Contains(l, `"outcome":"redirect_off_target"`) {
			t.Errorf("audit line %s: want a redirect_off_target summary without the Location", l)
		}
	}
}
