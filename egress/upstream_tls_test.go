package egress

import (
	"crypto/x509"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestUpstreamProxyHTTPS: an https:// upstream proxy is reached over TLS,
// its certificate verified against RootCAs (the test CA, as --ca-file
// gives it); CONNECT goes to the checked address inside that TLS. A proxy
// whose certificate is not trusted is tls_error naming the proxy, and it
// is sent nothing, the credentials included; a private answer never
// reaches it either.
func TestUpstreamProxyHTTPS(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(sniHandler), nil)
	proxy, ca := testnet.StartTLSConnectProxy(t, pub.Server.Listener.Addr().String())
	up, err := ParseUpstreamProxy("https://" + proxy.Addr())
	if err != nil || !up.TLS {
		t.Fatalf("ParseUpstreamProxy(https://…) = %+v, %v; want TLS", up, err)
	}
	up.Username, up.Password = "alice", "s3cret"
	client := newClient(t, &Options{Resolver: publicResolver, RootCAs: ca, Timeout: 10 * time.Second, Upstream: up})
	resp, err := client.Get("https://example.com/secret/path")
	if err != nil {
		t.Fatalf("GET through the https upstream proxy: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := string(body); got != "host=example.com sni=example.com" {
		t.Errorf("server saw %q", got)
	}
	resp, err = client.Get("https://internal.example.com/")
	if err == nil {
		resp.Body.Close()
	}
	wantRefusal(t, err, refusal.AddressNotPublic)
	if targets, _ := proxy.Seen(); !cmp.Equal(targets, []string{"CONNECT 93.184.216.34:443"}) {
		t.Errorf("the proxy saw %v; want the one CONNECT to the checked address", targets)
	}

	// Without the CA: the handshake with the proxy fails, nothing is sent.
	untrusting := newClient(t, &Options{Resolver: publicResolver, RootCAs: x509.NewCertPool(), Timeout: 10 * time.Second,
		Upstream: &UpstreamProxy{Addr: proxy.Addr(), TLS: true, Username: "alice", Password: "s3cret"}})
	resp, err = untrusting.Get("https://example.com/")
	if err == nil {
		resp.Body.Close()
	}
	wantRefusal(t, err, refusal.TLSError, proxy.Addr())
	if targets, _ := proxy.Seen(); len(targets) != 1 {
		t.Errorf("the proxy saw %v after a failed handshake; want nothing more", targets)
	}
}
