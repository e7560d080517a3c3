package testnet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestResolver(t *testing.T) {
	pub := netip.MustParseAddr("93.184.216.34")
	r := Resolver{"example.com": {pub}}
	got, err := r.LookupNetIP(context.Background(), "ip", "example.com")
	if err != nil || !cmp.Equal(got, []netip.Addr{pub}, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
		t.Errorf("example.com: got %v, %v; want [%v], nil", got, err, pub)
	}
	_, err = r.LookupNetIP(context.Background(), "ip", "nx.example")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound || dnsErr.Name != "nx.example" {
		t.Errorf("nx.example: got %v; want a not-found *net.DNSError naming it", err)
	}
}

// TestPublicTLSDial checks that Dial reaches the loopback server over a
// verified TLS connection for the name in the certificate, records every
// address, and refuses any address but Only.
func TestPublicTLSDial(t *testing.T) {
	only := netip.MustParseAddrPort("93.184.216.34:443")
	pub := StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.Host)
	}), &Options{Only: only})
	tr := &http.Transport{DialContext: pub.Dial, TLSClientConfig: &tls.Config{RootCAs: pub.RootCAs}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}

	resp, err := c.Get("https://example.com/") // the transport dials example.com:443; Only refuses it
	if err == nil {
		resp.Body.Close()
		t.Fatalf("dial of example.com:443 succeeded; want it refused (Only is %v)", only)
	}
	conn, err := pub.Dial(context.Background(), "tcp6", only.String())
	if err != nil {
		t.Fatalf("Dial(%v): %v", only, err)
	}
	tc := tls.Client(conn, &tls.Config{RootCAs: pub.RootCAs, ServerName: "example.com"})
	if err := tc.Handshake(); err != nil {
		t.Errorf("handshake as example.com: %v", err)
	}
	tc.Close()
	if got, want := pub.Dials.List(), []string{"example.com:443", only.String()}; !cmp.Equal(got, want) {
		t.Errorf("dials: got %v; want %v", got, want)
	}

	open := StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "open")
	}), nil)
	tr2 := &http.Transport{DialContext: open.Dial, TLSClientConfig: &tls.Config{RootCAs: open.RootCAs}}
	defer tr2.CloseIdleConnections()
	resp, err = (&http.Client{Transport: tr2}).Get("https://www.example.com/")
	if err != nil {
		t.Fatalf("get without Only: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "open" {
		t.Errorf("body: got %q; want %q", b, "open")
	}
}
