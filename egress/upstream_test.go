package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/ocfetch/ocfetch/capability"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// sniHandler answers with the Host header and the TLS server name it saw.
func sniHandler(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "host=%s sni=%s", r.Host, r.TLS.ServerName)
}

var publicResolver = testnet.Resolver{
	"example.com":          {netip.MustParseAddr("93.184.216.34")},
	"internal.example.com": {netip.MustParseAddr("10.1.2.3")},
	"mixed.example.com":    {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")},
}

// TestUpstreamProxyConnectsToCheckedAddress is the issue's first "done
// when": through a loopback upstream proxy and the test resolver, a public
// target is reached as CONNECT to the checked ip:port, with the name in
// SNI and Host; a name resolving to a non-public address never reaches the
// proxy.
func TestUpstreamProxyConnectsToCheckedAddress(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(sniHandler), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	client := newClient(t, &Options{
		Resolver: publicResolver,
		RootCAs:  pub.RootCAs,
		Timeout:  10 * time.Second,
		Upstream: &UpstreamProxy{Addr: proxy.Addr()},
	})

	resp, err := client.Get("https://example.com/secret/path?q=1")
	if err != nil {
		t.Fatalf("GET through the upstream proxy: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got, want := string(body), "host=example.com sni=example.com"; got != want {
		t.Errorf("server saw %q; want %q", got, want)
	}
	targets, auths := proxy.Seen()
	if diff := cmp.Diff([]string{"CONNECT 93.184.216.34:443"}, targets); diff != "" {
		t.Errorf("the proxy saw (-want +got):\n%s", diff)
	}
	if auths[0] != "" {
		t.Errorf("Proxy-Authorization %q sent without credentials; want none", auths[0])
	}

	for _, host := range []string{"internal.example.com", "mixed.example.com", "10.0.0.1", "[fd00:ec2::254]"} {
		t.Run(host, func(t *testing.T) {
			resp, err := client.Get("https://" + host + "/")
			if err == nil {
				resp.Body.Close()
			}
			wantRefusal(t, err, refusal.AddressNotPublic)
			if targets, _ := proxy.Seen(); len(targets) != 1 {
				t.Errorf("the proxy saw %v; want nothing after the first request", targets)
			}
		})
	}
}

// TestUpstreamProxyNotForLocalMode: local mode's loopback dial goes
// straight to the admitted port, never through the upstream proxy.
func TestUpstreamProxyNotForLocalMode(t *testing.T) {
	_, port := loopbackServer(t, http.HandlerFunc(helloHandler))
	proxy := testnet.StartConnectProxy(t, "127.0.0.1:1")
	client := newClient(t, &Options{Resolver: failResolver{t}, Upstream: &UpstreamProxy{Addr: proxy.Addr()}})
	req, _ := http.NewRequestWithContext(WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", port)), http.MethodGet,
		"http://127.0.0.1:"+strconv.Itoa(int(port))+"/", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("local mode GET: %v", err)
	}
	resp.Body.Close()
	if targets, _ := proxy.Seen(); len(targets) != 0 {
		t.Errorf("the proxy saw %v; want nothing for local mode", targets)
	}
}

func TestUpstreamProxyCredentials(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(sniHandler), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret:x"))
	proxy.WantAuth = want

	get := func(up *UpstreamProxy) error {
		c := newClient(t, &Options{Resolver: publicResolver, RootCAs: pub.RootCAs, Upstream: up, Timeout: 10 * time.Second})
		resp, err := c.Get("https://example.com/")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	r := wantRefusal(t, get(&UpstreamProxy{Addr: proxy.Addr()}), refusal.ProxyAuthRequired, proxy.Addr(), "407")
	if !strings.Contains(r.Hint, "--upstream-proxy-auth") {
		t.Errorf("hint %q; want it to name --upstream-proxy-auth", r.Hint)
	}

	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte("alice:s3cret:x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	user, pass, err := ReadProxyAuthFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := get(&UpstreamProxy{Addr: proxy.Addr(), Username: user, Password: pass}); err != nil {
		t.Fatalf("GET with the credentials file: %v", err)
	}
	r = wantRefusal(t, get(&UpstreamProxy{Addr: proxy.Addr(), Username: "alice", Password: "wrong"}), refusal.ProxyAuthRequired)
	if strings.Contains(r.Message+r.Hint, "wrong") {
		t.Errorf("refusal %q / %q repeats the password", r.Message, r.Hint)
	}
	if _, auths := proxy.Seen(); auths[1] != want {
		t.Errorf("Proxy-Authorization %q; want %q", auths[1], want)
	}
}

func TestUpstreamProxyFailures(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(sniHandler), nil)
	forbidding := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	forbidding.Status = http.StatusForbidden

	// A port nothing listens on, nor can while the test runs.
	closed := refusedPort(t)

	for _, tc := range []struct {
		name  string
		proxy string
		code  refusal.Code
		parts []string
	}{
		{"proxy down", closed, refusal.ConnectionFailed, []string{"upstream proxy " + closed, "connection refused"}},
		{"proxy forbids", forbidding.Addr(), refusal.ConnectionFailed, []string{"answered 403 Forbidden to CONNECT 93.184.216.34:443"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, &Options{Resolver: publicResolver, RootCAs: pub.RootCAs, Upstream: &UpstreamProxy{Addr: tc.proxy}, Timeout: 10 * time.Second})
			resp, err := c.Get("https://example.com/private/path")
			if err == nil {
				resp.Body.Close()
			}
			r := wantRefusal(t, err, tc.code, tc.parts...)
			if strings.Contains(r.Message+r.Hint, "private") {
				t.Errorf("refusal %q / %q carries the path", r.Message, r.Hint)
			}
		})
	}
}

// TestUpstreamHandshake drives the CONNECT exchange over a pipe: bytes
// that follow the proxy's answer are kept, and an endless answer is cut.
func TestUpstreamHandshake(t *testing.T) {
	u := newUpstreamDialer(&UpstreamProxy{Addr: "proxy.test:3128"}, 5*time.Second, nil)
	for _, tc := range []struct {
		name   string
		answer string
		want   string // read through the tunnel; "" expects an error
	}{
		{"early bytes kept", "HTTP/1.1 200 Connection established\r\n\r\nhello", "hello"},
		{"endless header", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 1000), ""},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			go func() {
				defer server.Close()
				br := bufio.NewReader(server)
				if _, err := http.ReadRequest(br); err != nil {
					return
				}
				io.WriteString(server, tc.answer)
			}()
			conn, err := u.handshake(context.Background(), client, "93.184.216.34:443")
			if tc.want == "" {
				if err == nil {
					t.Fatalf("handshake succeeded; want an error")
				}
				if _, ok := refusal.As(err); !ok {
					t.Errorf("error %v is not a *refusal.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			got := make([]byte, len(tc.want))
			if _, err := io.ReadFull(conn, got); err != nil || string(got) != tc.want {
				t.Errorf("read %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestParseUpstreamProxy(t *testing.T) {
	for _, tc := range []struct {
		raw, want, errPart string
	}{
		{"http://proxy.corp:3128", "proxy.corp:3128", ""},
		{"http://PROXY.Corp.:8080/", "proxy.corp:8080", ""},
		{"HTTP://10.0.0.5:3128", "10.0.0.5:3128", ""},
		{"http://[::1]:3128", "[::1]:3128", ""},
		{"http://127.0.0.1:3128", "127.0.0.1:3128", ""},
		{"", "", "empty"},
		{"proxy.corp:3128", "", "scheme"},
		{"https://proxy.corp:3128", "proxy.corp:3128", ""},
		{"https://proxy.corp", "", "port is missing"},
		{"socks5://proxy.corp:1080", "", "not supported"},
		{"http://proxy.corp", "", "port is missing"},
		{"http://proxy.corp:0", "", "port"},
		{"http://proxy.corp:99999", "", "port"},
		{"http://alice:s3cret@proxy.corp:3128", "", "--upstream-proxy-auth"},
		{"http://proxy.corp:3128/path", "", "path"},
		{"http://proxy.corp:3128/?q", "", "query"},
		{"http://:3128", "", "host is missing"},
		{"http://proxy corp:3128", "", ""},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			p, err := ParseUpstreamProxy(tc.raw)
			if tc.want != "" {
				if err != nil || p.Addr != tc.want {
					t.Fatalf("got %+v, %v; want Addr %q", p, err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrUpstreamProxyURL) {
				t.Fatalf("got %+v, %v; want ErrUpstreamProxyURL", p, err)
			}
			if !strings.Contains(err.Error(), tc.errPart) || !strings.Contains(err.Error(), "write http://HOST:PORT") {
				t.Errorf("error %q; want it to say %q and how to write the URL", err, tc.errPart)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q repeats the password", err)
			}
		})
	}
}

func FuzzParseUpstreamProxy(f *testing.F) {
	// Accepted forms, and the refusals of TestParseUpstreamProxy.
	for _, s := range []string{"http://proxy.corp:3128", "http://[::1]:3128/", "http://a:b@h:1", "http://h", "https://h:1", "http://h:1/p?q#f", "http://%zz:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParseUpstreamProxy(raw)
		if err != nil {
			if !errors.Is(err, ErrUpstreamProxyURL) {
				t.Fatalf("error %v does not wrap ErrUpstreamProxyURL", err)
			}
			return
		}
		host, port, err := net.SplitHostPort(p.Addr)
		if err != nil || host == "" || port == "" || strings.ContainsAny(p.Addr, "@/?#") {
			t.Fatalf("accepted %q as Addr %q; want a plain host:port", raw, p.Addr)
		}
	})
}

func TestReadProxyAuthFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path, user, pass, errPart string
	}{
		{"plain", write("a", "alice:pw"), "alice", "pw", ""},
		{"newline", write("b", "alice:pw:with:colons\r\n"), "alice", "pw:with:colons", ""},
		{"empty password", write("c", "alice:\n"), "alice", "", ""},
		{"no colon", write("d", "alicepw\n"), "", "", "user:pass"},
		{"no user", write("e", ":pw\n"), "", "", "user:pass"},
		{"two lines", write("f", "alice:pw\nbob:pw\n"), "", "", "one line"},
		{"saved with a BOM", write("bom", "\ufeffalice:pw\r\n"), "", "", "byte order mark (BOM)"},
		{"saved as UTF-16", write("utf16", "\xff\xfea\x00:\x00p\x00"), "", "", "byte order mark (BOM)"},
		{"too large", write("g", "alice:"+strings.Repeat("x", 5000)), "", "", "larger than"},
		{"directory", dir, "", "", "not a regular file"},
		{"missing", filepath.Join(dir, "nope"), "", "", "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, pass, err := ReadProxyAuthFile(tc.path)
			if tc.errPart == "" {
				if err != nil || user != tc.user || pass != tc.pass {
					t.Fatalf("got %q, %q, %v; want %q, %q", user, pass, err, tc.user, tc.pass)
				}
				return
			}
			if !errors.Is(err, ErrProxyAuthFile) || !strings.Contains(err.Error(), tc.errPart) {
				t.Fatalf("got %v; want ErrProxyAuthFile saying %q", err, tc.errPart)
			}
			if strings.Contains(err.Error(), "pw") && tc.name != "missing" {
				t.Errorf("error %q repeats the file's content", err)
			}
		})
	}
}

// TestLoadCAFile: a bad CA file is a named error; a good one makes the
// client trust a server signed by it (on top of the system roots).
func TestLoadCAFile(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(sniHandler), nil)
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pub.Server.Certificate().Raw})
	for _, tc := range []struct {
		name, path, errPart string
	}{
		{"missing", filepath.Join(dir, "none.pem"), "none.pem"},
		{"empty", write("empty.pem", nil), "no PEM certificate"},
		{"not PEM", write("junk.pem", []byte("hello\n")), "no PEM certificate"},
		{"a key", write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}})), `block 1 is "PRIVATE KEY"`},
		{"bad certificate", write("bad.pem", append(append([]byte{}, good...), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 1, 2}})...)), "certificate 2"},
		{"directory", dir, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := LoadCAFile(tc.path)
			if !errors.Is(err, ErrCAFile) || !strings.Contains(err.Error(), tc.errPart) {
				t.Fatalf("got %v, %v; want ErrCAFile saying %q", pool, err, tc.errPart)
			}
		})
	}

	pool, err := LoadCAFile(write("ca.pem", append([]byte("corporate CA\n"), good...)))
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, &Options{Resolver: publicResolver, Dial: pub.Dial, RootCAs: pool, Timeout: 10 * time.Second})
	resp, err := c.Get("https://example.com/")
	if err != nil {
		t.Fatalf("GET trusting the CA file: %v", err)
	}
	resp.Body.Close()
}

// TestUpstreamHandshakeGivesUp: a proxy that never answers CONNECT is a
// timeout at ctx's deadline, and cancelled when ctx is cancelled.
func TestUpstreamHandshakeGivesUp(t *testing.T) {
	u := newUpstreamDialer(&UpstreamProxy{Addr: "proxy.test:3128"}, time.Minute, nil)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want refusal.Code
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, refusal.Timeout},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, refusal.Cancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			defer server.Close()
			go io.Copy(io.Discard, server) // reads the CONNECT, never answers
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err := u.handshake(ctx, client, "93.184.216.34:443")
			wantRefusal(t, err, tc.want, "proxy.test:3128")
		})
	}
}
