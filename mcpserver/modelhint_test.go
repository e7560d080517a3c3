package mcpserver

import (
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/robotscheck"
)

// TestModelHintsNameNothingAModelCannotDo: the hints a model reads after
// a refusal of the fetch itself (robots.txt, a non-public address) tell it
// what it can do — tell the user, try again later — and never name a flag
// of the server (--respect-robots) or a workspace file that configures
// ocfetch (.oc_chat/…): a model can change neither, and should not try.
func TestModelHintsNameNothingAModelCannotDo(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		default:
			io.WriteString(w, "page")
		}
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	eo := &egress.Options{
		Resolver: testnet.Resolver{"example.com": {public}, "internal.example": {netip.MustParseAddr("10.1.2.3")}},
		Dial:     pub.Dial, RootCAs: pub.RootCAs,
	}
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443", "internal.example:443", "10.0.0.1:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: eo, Robots: robotscheck.New(nil), CacheTTL: -1}, clientSpec{})
	for _, tc := range []struct {
		name, url, reason, hint string
	}{
		{"robots", "https://example.com/private/x", "robots_disallowed",
			"hint: the site's robots.txt asks automated clients not to fetch this page, and this server respects it: do not retry it; tell the user, who can open the page in a browser"},
		{"resolved private", "https://internal.example/", "address_not_public", "hint: " + wantPublicModelHint},
		{"private literal", "https://10.0.0.1/", "address_not_public", "hint: " + wantPublicModelHint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := callFetch(t, cs, `{"url": "`+tc.url+`"}`)
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, tc.reason+": ") {
				t.Fatalf("isError %v, text %q; want %s", res.IsError, got, tc.reason)
			}
			if _, hint, _ := strings.Cut(got, "\n"); hint != tc.hint {
				t.Errorf("hint line\n%q\nwant\n%q", hint, tc.hint)
			}
			for _, bad := range []string{"--", ".oc_chat", "local_fetch.json"} {
				if strings.Contains(got, bad) {
					t.Errorf("the model reads %q in %q", bad, got)
				}
			}
		})
	}
}

const wantPublicModelHint = "only public internet addresses are fetched: private, link-local, metadata and other special addresses are never reached; " +
	"a dev server on localhost, 127.0.0.1 or ::1 is reachable only in local mode, which the user sets up for its port; tell the user if you need it"
