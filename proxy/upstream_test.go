package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testnet"
	"github.com/ocfetch/ocfetch/rules"
)

// TestProxyChainsToUpstream: the egress proxy (ocfetch proxy, ocfetch
// run) reaches the web through the operator's upstream proxy as get does:
// the target is decided and resolved first, the upstream proxy is asked
// for a CONNECT to the checked address, and a name whose answer is private
// never reaches it.
func TestProxyChainsToUpstream(t *testing.T) {
	var up *testnet.ConnectProxy
	w := newWorld(t, worldOpts{tune: func(o *Options) {
		up = testnet.StartConnectProxy(t, "127.0.0.1:0") // Forward set below, before any request
		o.Guard = egress.NewGuard(&egress.Options{
			Resolver: testnet.Resolver{
				publicHost:  {netip.MustParseAddr(publicAddr)},
				privateHost: {netip.MustParseAddr("10.0.0.5")},
			},
			Timeout:  5 * time.Second,
			Upstream: &egress.UpstreamProxy{Addr: up.Addr()},
			// The direct dial is never used: every public connection goes
			// through the upstream proxy.
			Dial: func(context.Context, string, string) (net.Conn, error) {
				t.Error("the guard dialed directly despite the upstream proxy")
				return nil, net.ErrClosed
			},
		})
	}})
	up.Forward = w.https.Listener.Addr().String()
	w.rule(rules.Allow, publicHost, 443)
	w.rule(rules.Allow, privateHost, 443)

	resp, err := w.client().Get("https://" + publicHost + "/")
	if err != nil {
		t.Fatalf("GET through the proxy and the upstream proxy: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) == "" {
		t.Errorf("status %d body %q", resp.StatusCode, body)
	}
	resp, _ = w.raw(connectHead(privateHost + ":443"))
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(ReasonHeader) != "address_not_public" {
		t.Errorf("private answer: status %d reason %q; want 403 address_not_public", resp.StatusCode, resp.Header.Get(ReasonHeader))
	}
	if targets, _ := up.Seen(); !cmp.Equal(targets, []string{"CONNECT " + publicAddr + ":443"}) {
		t.Errorf("the upstream proxy saw %v; want only the CONNECT to the checked public address", targets)
	}
}
