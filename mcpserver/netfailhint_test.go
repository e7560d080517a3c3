package mcpserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// dnsDown is a resolver no DNS server answers.
type dnsDown struct{}

func (dnsDown) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
}

// TestNetworkFailureModelHints: when the network or the upstream proxy
// ocfetch is configured with fails, a model is told what it can do (try
// again later, tell the user) and, where a flag would help, to ask the
// user to start ocfetch with it — never "use --upstream-proxy", "check
// --upstream-proxy" or "give its CA with --ca-file", which only the
// person who starts ocfetch can act on.
func TestNetworkFailureModelHints(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})
	noRoute := func(_ context.Context, network, address string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ENETUNREACH}
	}
	refused := testnet.RefusedPort(t)
	connectAnswer := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	const proxyHint = "the upstream proxy ocfetch is configured with %s; tell the user, who configures it"
	for _, tc := range []struct {
		name   string
		eo     *egress.Options
		reason string
		hint   string
	}{
		{"no route", &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: noRoute}, "connection_failed",
			"this machine has no route there; try again later, or tell the user (behind a corporate proxy, ask the user to start ocfetch with --upstream-proxy)"},
		{"no DNS", &egress.Options{Resolver: dnsDown{}}, "connection_failed",
			"no DNS server answered; try again later, or tell the user (behind a corporate proxy, ask the user to start ocfetch with --upstream-proxy)"},
		{"proxy down", &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Upstream: &egress.UpstreamProxy{Addr: "127.0.0.1:" + strconv.Itoa(int(refused))}}, "connection_failed",
			strings.Replace(proxyHint, "%s", "is not reachable", 1)},
		{"proxy refuses the tunnel", &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Upstream: &egress.UpstreamProxy{Addr: connectAnswer(http.StatusForbidden)}}, "connection_failed",
			strings.Replace(proxyHint, "%s", "would not open the tunnel", 1)},
		{"proxy wants credentials", &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Upstream: &egress.UpstreamProxy{Addr: connectAnswer(http.StatusProxyAuthRequired)}}, "proxy_auth_required",
			strings.Replace(proxyHint, "%s", "wants credentials it was not given", 1)},
		{"proxy refuses the credentials", &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Upstream: &egress.UpstreamProxy{Addr: connectAnswer(http.StatusProxyAuthRequired), Username: "u", Password: "p"}}, "proxy_auth_required",
			strings.Replace(proxyHint, "%s", "did not accept its credentials", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, &Options{Root: ws.Root, Egress: tc.eo, CacheTTL: -1}, clientSpec{})
			res := callFetch(t, cs, `{"url": "https://example.com/"}`)
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, tc.reason+": ") {
				t.Fatalf("isError %v, text %q; want %s", res.IsError, got, tc.reason)
			}
			if _, hint, _ := strings.Cut(got, "\nhint: "); hint != tc.hint {
				t.Errorf("hint\n%q\nwant\n%q", hint, tc.hint)
			}
		})
	}
}
