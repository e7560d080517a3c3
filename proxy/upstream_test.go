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
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
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

// TestProxyUpstreamExclude: a shell command's CONNECT to a host on the
// upstream proxy's exclusion list is decided and checked as any other and
// then dialled directly; other hosts still go through the upstream proxy;
// an excluded name whose answer is private is refused, reaching neither.
func TestProxyUpstreamExclude(t *testing.T) {
	const otherHost, otherAddr = "other.test", "93.184.216.40"
	var up *testnet.ConnectProxy
	var dials testnet.DialLog
	w := newWorld(t, worldOpts{tune: func(o *Options) {
		up = testnet.StartConnectProxy(t, "127.0.0.1:0") // Forward set below, before any request
		excl, err := egress.ParseUpstreamExclude([]string{publicHost, privateHost})
		if err != nil {
			t.Fatal(err)
		}
		o.Guard = egress.NewGuard(&egress.Options{
			Resolver: testnet.Resolver{
				publicHost:  {netip.MustParseAddr(publicAddr)},
				otherHost:   {netip.MustParseAddr(otherAddr)},
				privateHost: {netip.MustParseAddr("10.0.0.5")},
			},
			Timeout:  5 * time.Second,
			Upstream: &egress.UpstreamProxy{Addr: up.Addr(), Exclude: excl},
			Dial: func(ctx context.Context, _, address string) (net.Conn, error) {
				dials.Add(address)
				var d net.Dialer
				return d.DialContext(ctx, "tcp", up.Forward)
			},
		})
	}})
	up.Forward = w.https.Listener.Addr().String()
	for _, h := range []string{publicHost, otherHost, privateHost} {
		w.rule(rules.Allow, h, 443)
	}

	resp, err := w.client().Get("https://" + publicHost + "/")
	if err != nil {
		t.Fatalf("GET of the excluded host: %v", err)
	}
	resp.Body.Close()
	if resp, _ := w.raw(connectHead(otherHost + ":443")); resp.StatusCode != http.StatusOK {
		t.Errorf("CONNECT %s: status %d; want 200 through the upstream proxy", otherHost, resp.StatusCode)
	}
	if resp, _ := w.raw(connectHead(privateHost + ":443")); resp.StatusCode != http.StatusForbidden || resp.Header.Get(ReasonHeader) != "address_not_public" {
		t.Errorf("private answer: status %d reason %q; want 403 address_not_public", resp.StatusCode, resp.Header.Get(ReasonHeader))
	}
	if got, want := dials.List(), []string{publicAddr + ":443"}; !cmp.Equal(got, want) {
		t.Errorf("direct dials %v; want only the excluded host's checked address %v", got, want)
	}
	if targets, _ := up.Seen(); !cmp.Equal(targets, []string{"CONNECT " + otherAddr + ":443"}) {
		t.Errorf("the upstream proxy saw %v; want only %s's checked address", targets, otherHost)
	}
}
