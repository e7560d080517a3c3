package fetch

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"go.uber.org/goleak"
)

// publicHarness serves a loopback TLS server (its certificate is valid for
// example.com and *.example.com) as if it were the public host: the
// injected resolver maps test names to public-looking addresses, the guard
// checks them, and the injected Dial connects every checked address to the
// loopback server. No packet leaves loopback.
type publicHarness struct {
	f      *Fetch
	client *http.Client
	pub    *testnet.PublicTLS
}

func newPublicHarness(t *testing.T, handler http.Handler, http2 bool) *publicHarness {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	ph := &publicHarness{pub: testnet.StartPublicTLS(t, handler, &testnet.Options{HTTP2: http2})}
	dns := testnet.Resolver{
		"example.com":     {netip.MustParseAddr("93.184.216.34")},
		"www.example.com": {netip.MustParseAddr("2606:2800:220:1:248:1893:25c8:1946")},
		"other.test":      {netip.MustParseAddr("93.184.216.35")},
		"internal.test":   {netip.MustParseAddr("10.0.0.1")},
		"rebind.test":     {netip.MustParseAddr("127.0.0.1")},
	}
	ph.client = egress.NewClient(&egress.Options{
		Resolver: dns,
		RootCAs:  ph.pub.RootCAs,
		Timeout:  5 * time.Second,
		Dial:     ph.pub.Dial,
	})
	ph.f = newFetch(ph.client, &Options{}, testScope{}.ws, risk.Standard)
	t.Cleanup(func() {
		ph.pub.Server.Close()
		ph.client.CloseIdleConnections()
		goleak.VerifyNone(t, ignore)
	})
	return ph
}

func (ph *publicHarness) dials() []string { return ph.pub.Dials.List() }

func TestRunPublicHTTPS(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		name := "HTTP/1.1"
		if h2 {
			name = "HTTP/2"
		}
		t.Run(name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, "host="+r.Host+" proto="+r.Proto)
			})
			mux.Handle("/downgrade", http.RedirectHandler("http://example.com/page", http.StatusFound))
			mux.Handle("/elsewhere", http.RedirectHandler("https://www.example.com/page", http.StatusFound))
			mux.Handle("/same", http.RedirectHandler("https://EXAMPLE.com:443/page", http.StatusFound))
			mux.Handle("/flood", hostile.HeaderFlood(1000, 100))
			mux.Handle("/trickle", hostile.Trickle(time.Second))
			ph := newPublicHarness(t, mux, h2)

			out := output(t, call(context.Background(), ph.f, `{"url": "https://Example.com/page"}`))
			wantProto := map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[h2]
			if out.Content != "host=example.com proto="+wantProto || out.URL != "https://example.com/page" {
				t.Errorf("content %q url %q; want host=example.com proto=%s at https://example.com/page", out.Content, out.URL, wantProto)
			}
			out = output(t, call(context.Background(), ph.f, `{"url": "https://example.com/same"}`))
			if !strings.HasPrefix(out.Content, "host=example.com") {
				t.Errorf("same-target redirect: content %q; want the wire host to stay example.com", out.Content)
			}
			for _, path := range []string{"/downgrade", "/elsewhere"} {
				wantError(t, call(context.Background(), ph.f, `{"url": "https://example.com`+path+`"}`), refusal.RedirectOffTarget)
			}
			// HTTP/1 names the header limit. HTTP/2 cannot: Go's client
			// stops reading a header block that overruns the advertised
			// limit by a CONTINUATION frame and closes the connection with
			// a bare PROTOCOL_ERROR, which is all the error says.
			wantFlood := map[bool]refusal.Code{false: refusal.ResponseHeadersTooLarge, true: refusal.ConnectionFailed}[h2]
			wantError(t, call(context.Background(), ph.f, `{"url": "https://example.com/flood"}`), wantFlood)
			short := NewFetch(ph.client, &Options{Timeout: 200 * time.Millisecond})
			wantError(t, call(context.Background(), short, `{"url": "https://example.com/trickle"}`), refusal.Timeout)
			for _, a := range ph.dials() {
				if a != "93.184.216.34:443" {
					t.Errorf("guard dialed %q; want only the checked address of example.com", a)
				}
			}
		})
	}
}

func TestRunPublicFailures(t *testing.T) {
	ph := newPublicHarness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), false)
	tests := []struct {
		name, url string
		want      refusal.Code
	}{
		{"certificate for another name", "https://other.test/", refusal.TLSError},
		{"resolves to private", "https://internal.test/", refusal.AddressNotPublic},
		{"rebinds to loopback", "https://rebind.test/", refusal.AddressNotPublic},
		{"does not resolve", "https://nxdomain.test/", refusal.ConnectionFailed},
		{"plain http", "http://example.com/", refusal.HTTPSRequired},
		{"localhost is not public", "https://localhost:443/", refusal.LocalProfileNotPermissive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(context.Background(), ph.f, `{"url": "`+tc.url+`"}`)
			wantError(t, res, tc.want)
		})
	}
	for _, a := range ph.dials() {
		if a != "93.184.216.35:443" {
			t.Errorf("guard dialed %q; only other.test's public address may be dialed", a)
		}
	}
}
