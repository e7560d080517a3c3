package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// The instructions say whether the --root workspace is trusted, and what
// that means for the model; without --root they state the rule.
func TestInstructionsSayWhetherTrusted(t *testing.T) {
	untrusted := testws.New(t, testws.Spec{})
	trusted := trustedWS(t, testws.Spec{})
	for _, tc := range []struct {
		name string
		root string
		want []string
	}{
		{"untrusted", untrusted.Root, []string{"has not trusted this workspace", "workspace_untrusted", "ocfetch trust --root " + untrusted.Root, "deny rules and profile strict always apply"}},
		{"trusted", trusted.Root, []string{"The user trusts this workspace"}},
		{"client roots", "", []string{"Whether the user trusts that workspace is checked on every call", "workspace_untrusted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newServer(&Options{Root: tc.root})
			if err != nil {
				t.Fatal(err)
			}
			got := s.instructions()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("instructions %q do not contain %q", got, w)
				}
			}
		})
	}
	// Revoked: the next server says so (nothing cached).
	if _, err := testLayers.Trust.Revoke(context.Background(), trusted.Root); err != nil {
		t.Fatal(err)
	}
	s, err := newServer(&Options{Root: trusted.Root})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.instructions(); !strings.Contains(got, "has not trusted this workspace") {
		t.Errorf("after revoke: %q", got)
	}
}

// An "always" answered by elicitation in a workspace the user has not
// trusted saves the rule, and the result tells the model that it counts
// only once the user trusts the workspace (never only the diagnostics).
func TestAlwaysInAnUntrustedWorkspace(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	eo := &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: pub.Dial, RootCAs: pub.RootCAs}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := testws.New(t, testws.Spec{Profile: "standard"}) // came with its .oc_chat/settings.json: not trusted
			user := &elicitor{action: "accept", decision: "always"}
			cs := connect(t, &Options{Root: ws.Root, Egress: eo}, clientSpec{protocol: proto, elicit: user})
			res := callFetch(t, cs, `{"url": "https://example.com/"}`)
			got := text(res)
			if res.IsError || !strings.Contains(got, "hello from example.com") ||
				!strings.Contains(got, `workspace_untrusted: the rule "allow example.com:443" was saved in `+ws.RulesPath()) ||
				res.Meta["ocfetch/rule_not_saved"] != "workspace_untrusted" {
				t.Fatalf("isError %v, meta %v, text:\n%s", res.IsError, res.Meta, got)
			}
			res = callFetch(t, cs, `{"url": "https://example.com/"}`)
			if !res.IsError || !strings.HasPrefix(text(res), "workspace_untrusted: ") {
				t.Errorf("next call: %q; want workspace_untrusted (the rule is the untrusted workspace's)", text(res))
			}
		})
	}
}
