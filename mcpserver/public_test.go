package mcpserver

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
)

// fakeResolver maps test names to public-looking addresses; anything else
// is unknown. It never asks DNS.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestFetchPublicHTTPS fetches a public https target through the MCP
// server with the egress guard in place: the resolver answers a public
// address, the injected dial connects that address to a loopback TLS
// server (nothing leaves the machine), and a name that resolves to a
// private address is refused at dial time.
func TestFetchPublicHTTPS(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "hello over tls from %s", r.Host)
	}))
	defer tlsSrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(tlsSrv.Certificate())
	public := netip.MustParseAddr("93.184.215.14")
	var (
		mu     sync.Mutex
		dialed []string
	)
	eo := &egress.Options{
		Resolver: fakeResolver{
			"example.com":      {public},
			"internal.example": {netip.MustParseAddr("10.1.2.3")},
			"metadata.example": {netip.MustParseAddr("169.254.169.254")},
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, address)
			mu.Unlock()
			if address != netip.AddrPortFrom(public, 443).String() {
				return nil, fmt.Errorf("test dial: unexpected address %s", address)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, tlsSrv.Listener.Addr().String())
		},
		RootCAs: pool,
	}
	ws := newWorkspace(t, wsSpec{allow: []string{"example.com:443", "internal.example:443", "metadata.example:443"}})
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
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"93.184.215.14:443"}; strings.Join(dialed, ",") != strings.Join(want, ",") {
		t.Errorf("dialed %v; want only %v", dialed, want)
	}
}
