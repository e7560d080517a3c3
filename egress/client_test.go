package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"github.com/ocfetch/ocfetch/capability"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/refusal"
)

// publicOptions returns Options under which example.test resolves to the
// public-looking 93.184.216.34 and every dial actually connects to srv, a
// loopback test server: the public https path without leaving the machine.
func publicOptions(t *testing.T, srvAddr string, extra map[string][]string) (*Options, *recordingDial) {
	answers := map[string][]string{"example.test": {"93.184.216.34"}}
	for k, v := range extra {
		answers[k] = v
	}
	rd := &recordingDial{target: srvAddr}
	return &Options{Resolver: newMapResolver(answers), Dial: rd.Dial, Timeout: 10 * time.Second}, rd
}

func TestClientPublicPathOverTLS(t *testing.T) {
	srv, pool := newTLSServer(t, http.HandlerFunc(helloHandler), []string{"example.test"}, nil)
	opts, rd := publicOptions(t, srv.Listener.Addr().String(), nil)
	opts.RootCAs = pool
	client := newClient(t, opts)

	resp, err := client.Get("https://example.test/hello?q=1")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != "hello from example.test" {
		t.Errorf("got %d %q; want 200 %q", resp.StatusCode, body, "hello from example.test")
	}
	if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
		t.Errorf("response not over TLS 1.2+: %+v", resp.TLS)
	}
	if diff := cmp.Diff([]string{"93.184.216.34:443"}, rd.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

func TestClientRefusesPrivateName(t *testing.T) {
	srv, pool := newTLSServer(t, http.HandlerFunc(helloHandler), []string{"internal.test"}, nil)
	opts, rd := publicOptions(t, srv.Listener.Addr().String(), map[string][]string{"internal.test": {"10.0.0.1"}})
	opts.RootCAs = pool
	client := newClient(t, opts)

	_, err := client.Get("https://internal.test/secret-path?token=s3cr3t")
	r := wantRefusal(t, err, refusal.AddressNotPublic, "internal.test resolves to 10.0.0.1")
	if strings.Contains(r.Message, "secret") || strings.Contains(r.Message, "s3cr3t") || strings.Contains(r.Hint, "secret") {
		t.Errorf("refusal %q / %q leaks the URL path or query", r.Message, r.Hint)
	}
	if got := rd.addresses(); len(got) != 0 {
		t.Errorf("dialed %v; want nothing", got)
	}
}

// TestClientIgnoresProxyEnvironment: with HTTPS_PROXY and friends pointing
// at a listener, the request still goes straight to the (guarded) target
// and the proxy sees no connection. net/http reads the proxy environment
// once per process, so the request runs in a fresh child process whose
// environment is set before anything reads it.
func TestClientIgnoresProxyEnvironment(t *testing.T) {
	const childEnv = "OCFETCH_EGRESS_TEST_PROXY_CHILD"
	if proxyAddr := os.Getenv(childEnv); proxyAddr != "" {
		proxyEnvChild(t, proxyAddr)
		return
	}
	proxy := newCountingListener(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestClientIgnoresProxyEnvironment$")
	cmd.Env = append(os.Environ(), childEnv+"="+proxy.Addr, "NO_PROXY=", "no_proxy=")
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		cmd.Env = append(cmd.Env, k+"=http://"+proxy.Addr)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child test: %v\n%s", err, out)
	}
	if n := proxy.accepted(t); n != 0 {
		t.Errorf("proxy from the environment received %d connections; want 0", n)
	}
}

func proxyEnvChild(t *testing.T, proxyAddr string) {
	srv, pool := newTLSServer(t, http.HandlerFunc(helloHandler), []string{"example.test"}, nil)
	opts, rd := publicOptions(t, srv.Listener.Addr().String(), nil)
	opts.RootCAs = pool
	client := newClient(t, opts)

	req, err := http.NewRequest(http.MethodGet, "https://example.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The environment is live in this process: a default transport would
	// use the proxy.
	if u, err := http.ProxyFromEnvironment(req); err != nil || u == nil || u.Host != proxyAddr {
		t.Fatalf("http.ProxyFromEnvironment = %v, %v; want the test proxy %s", u, err, proxyAddr)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d; want 200", resp.StatusCode)
	}
	if diff := cmp.Diff([]string{"93.184.216.34:443"}, rd.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

func TestClientRefusesOldTLS(t *testing.T) {
	srv, pool := newTLSServer(t, http.HandlerFunc(helloHandler), []string{"example.test"}, func(c *tls.Config) {
		c.MinVersion = tls.VersionTLS10
		c.MaxVersion = tls.VersionTLS11
	})
	srv.Config.ErrorLog = discardLogger() // the server logs the failed handshake
	opts, _ := publicOptions(t, srv.Listener.Addr().String(), nil)
	opts.RootCAs = pool
	client := newClient(t, opts)

	resp, err := client.Get("https://example.test/")
	if err == nil {
		resp.Body.Close()
		t.Fatal("GET from a TLS 1.1 server succeeded; want a TLS failure")
	}
	// Over TCP the server's protocol_version alert surfaces as "remote
	// error: tls: protocol version not supported" (crypto/tls's alert type
	// is unexported; tls.AlertError is what QUIC connections return).
	var alert tls.AlertError
	if !errors.As(err, &alert) && !strings.Contains(err.Error(), "tls: protocol version") {
		t.Errorf("error %v is not a TLS version failure", err)
	}
	if refusal.CodeOf(err) != "" {
		t.Errorf("a TLS failure carries refusal code %s; want none (the fetch tool maps it)", refusal.CodeOf(err))
	}
}

func TestClientBoundsResponseHeaders(t *testing.T) {
	for _, tc := range []struct {
		name     string
		limit    int64
		sent     int
		wantFail bool
	}{
		{"default limit, small headers", 0, 4 << 10, false},
		{"default limit, flood", 0, 80 << 10, true},
		{"8 KiB limit, 4 KiB headers", 8 << 10, 4 << 10, false},
		{"8 KiB limit, flood", 8 << 10, 16 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, port := loopbackServer(t, headerFlood(tc.sent))
			client := newClient(t, &Options{Resolver: failResolver{t}, MaxResponseHeaderBytes: tc.limit})
			ctx := WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port))
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(int(port))+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if tc.wantFail {
				if err == nil || !strings.Contains(err.Error(), "exceeded") {
					t.Errorf("got error %v; want the header limit exceeded", err)
				}
			} else if err != nil {
				t.Errorf("GET: %v; want success", err)
			}
		})
	}
}

// TestClientLocalMode: a plain-http loopback server is reachable only with
// local mode's admission on the request context, under all three names.
func TestClientLocalMode(t *testing.T) {
	_, port := loopbackServer(t, http.HandlerFunc(helloHandler))
	ps := strconv.Itoa(int(port))
	client := newClient(t, &Options{Resolver: failResolver{t}})
	for _, tc := range []struct {
		url     string
		ctx     context.Context
		wantErr bool
	}{
		{"http://localhost:" + ps + "/", WithLoopback(context.Background(), capability.MustTarget("localhost", port)), false},
		{"http://127.0.0.1:" + ps + "/", WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port)), false},
		{"http://localhost:" + ps + "/", context.Background(), true},
		{"http://127.0.0.1:" + ps + "/", WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port+1)), true},
	} {
		t.Run(tc.url, func(t *testing.T) {
			req, err := http.NewRequestWithContext(tc.ctx, http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if tc.wantErr {
				if err == nil {
					resp.Body.Close()
				}
				wantRefusal(t, err, refusal.AddressNotPublic)
				return
			}
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d; want 200", resp.StatusCode)
			}
		})
	}
}

func TestNewClientSettings(t *testing.T) {
	for _, tc := range []struct {
		name          string
		opts          *Options
		wantTimeout   time.Duration
		wantMaxHeader int64
	}{
		{"nil options", nil, DefaultTimeout, DefaultMaxResponseHeaderBytes},
		{"explicit", &Options{Timeout: 5 * time.Second, MaxResponseHeaderBytes: 1 << 10}, 5 * time.Second, 1 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClient(tc.opts)
			tr, ok := c.Transport.(*http.Transport)
			if !ok {
				t.Fatalf("transport is %T; want *http.Transport", c.Transport)
			}
			if tr.Proxy != nil {
				t.Errorf("Transport.Proxy is set; want nil (never from the environment)")
			}
			//lint:ignore SA1019 the test asserts the deprecated dial hooks stay unset
			if tr.DialContext == nil || tr.DialTLSContext != nil || tr.Dial != nil || tr.DialTLS != nil {
				t.Errorf("transport must dial through the guard's DialContext only")
			}
			if tr.TLSClientConfig == nil || tr.TLSClientConfig.MinVersion != tls.VersionTLS12 || tr.TLSClientConfig.InsecureSkipVerify {
				t.Errorf("TLS config %+v; want MinVersion TLS 1.2, verification on", tr.TLSClientConfig)
			}
			if c.Timeout != tc.wantTimeout {
				t.Errorf("Timeout %v; want %v", c.Timeout, tc.wantTimeout)
			}
			if tr.ResponseHeaderTimeout != 0 {
				t.Errorf("ResponseHeaderTimeout %v; want 0 (the whole request's bound covers the header)", tr.ResponseHeaderTimeout)
			}
			if tr.TLSHandshakeTimeout <= 0 || tr.ExpectContinueTimeout <= 0 || tr.IdleConnTimeout <= 0 {
				t.Errorf("a transport timeout is unset: %v %v %v", tr.TLSHandshakeTimeout, tr.ExpectContinueTimeout, tr.IdleConnTimeout)
			}
			if tr.MaxResponseHeaderBytes != tc.wantMaxHeader {
				t.Errorf("MaxResponseHeaderBytes %d; want %d", tr.MaxResponseHeaderBytes, tc.wantMaxHeader)
			}
			if !tr.ForceAttemptHTTP2 {
				t.Errorf("ForceAttemptHTTP2 false; want true")
			}
			if c.CheckRedirect != nil {
				t.Errorf("CheckRedirect is set; want nil (the fetch tool sets its own)")
			}
		})
	}
}

// TestClientDialsOnlyLiterals: whatever the URL, the DialFunc is given a
// literal ip:port, never a name.
func TestClientDialsOnlyLiterals(t *testing.T) {
	srv, pool := newTLSServer(t, http.HandlerFunc(helloHandler), []string{"example.test", "www.example.test"}, nil)
	opts, rd := publicOptions(t, srv.Listener.Addr().String(), map[string][]string{"www.example.test": {"2606:4700:4700::1111"}})
	opts.RootCAs = pool
	client := newClient(t, opts)
	for _, u := range []string{"https://example.test/", "https://WWW.Example.Test.:443/", "https://example.test:8443/"} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		client.CloseIdleConnections()
	}
	for _, a := range rd.addresses() {
		host, _, err := net.SplitHostPort(a)
		if err != nil || net.ParseIP(host) == nil {
			t.Errorf("dial given %q; want a literal ip:port", a)
		}
	}
	if diff := cmp.Diff([]string{"93.184.216.34:443", "[2606:4700:4700::1111]:443", "93.184.216.34:8443"}, rd.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}
