package mcpserver

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestFetchPublicHTTPS fetches a public https target through the MCP
// server with the egress guard in place: the resolver answers a public
// address, the injected dial connects that address to a loopback TLS
// server (nothing leaves the machine), and a name that resolves to a
// private address is refused at dial time.
func TestFetchPublicHTTPS(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "hello over tls from %s", r.Host)
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	eo := &egress.Options{
		Resolver: testnet.Resolver{
			"example.com":      {public},
			"internal.example": {netip.MustParseAddr("10.1.2.3")},
			"metadata.example": {netip.MustParseAddr("169.254.169.254")},
		},
		Dial:    pub.Dial,
		RootCAs: pub.RootCAs,
	}
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443", "internal.example:443", "metadata.example:443"}})
	cs := connect(t, &Options{Root: ws.Root, Egress: eo}, clientSpec{})

	// httptest's certificate covers example.com, so TLS verifies against
	// pool as it would against a real CA.
	res := callFetch(t, cs, `{"url": "https://example.com/path?q=1", "format": "raw"}`)
	if res.IsError || !strings.Contains(text(res), "hello over tls from example.com") {
		t.Fatalf("isError %v, text:\n%s", res.IsError, text(res))
	}
	for _, host := range []string{"internal.example", "metadata.example"} {
		res := callFetch(t, cs, `{"url": "https://`+host+`/"}`)
		if !res.IsError || !strings.HasPrefix(text(res), "address_not_public: ") {
			t.Errorf("%s: isError %v, text %q; want address_not_public", host, res.IsError, text(res))
		}
	}
	dialed := pub.Dials.List()
	if want := []string{"93.184.215.14:443"}; strings.Join(dialed, ",") != strings.Join(want, ",") {
		t.Errorf("dialed %v; want only %v", dialed, want)
	}
}
