package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/ocfetch/ocfetch/scope"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestMain(m *testing.M) {
	reexec.Init() // the sandbox's part, when a test runs ocfetch run
	testchild.QuickRaceExit()
	goleak.VerifyTestMain(m)
}

// The simulated public internet of these tests. The guard's injected
// resolver maps the names below to public-looking addresses, and its
// injected dial connects those addresses to loopback httptest servers: no
// packet ever leaves loopback.
const (
	publicHost   = "example.test"
	publicAddr   = "93.184.216.34"
	deniedHost   = "denied.example.test"
	privateHost  = "private.test" // resolves to 10.0.0.5
	uncoveredURL = "http://uncovered.test/"
)

// world is one proxy under test with its workspace and fake internet.
type world struct {
	t     testing.TB
	ws    workspace.Workspace
	srv   *Server
	addr  string // the proxy's host:port
	https *httptest.Server
	http  *httptest.Server
	dials *testnet.DialLog // every address the guard asked the injected dial for
}

// echoHandler answers "hello from <host>" and echoes what the tests check.
func echoHandler(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/redirect":
		http.Redirect(w, r, "http://elsewhere.test/", http.StatusFound)
		return
	case "/bighead":
		w.Header().Set("X-Big", strings.Repeat("b", 2<<20))
		return
	case "/echo":
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Got-Host", r.Host)
		w.Header().Set("X-Got-Proxy-Authorization", r.Header.Get("Proxy-Authorization"))
		w.Header().Set("X-Got-Custom-Hop", r.Header.Get("X-Hop"))
		w.Header().Set("X-Got-Keep", r.Header.Get("X-Keep"))
		w.Write(b)
		return
	}
	fmt.Fprintf(w, "hello from %s", r.Host)
}

type worldOpts struct {
	profile risk.Profile
	tune    func(*Options)
}

func newWorld(t testing.TB, o worldOpts) *world {
	t.Helper()
	ws := testws.New(t, testws.Spec{})
	w := &world{t: t, ws: ws, dials: &testnet.DialLog{}}
	w.https = httptest.NewTLSServer(http.HandlerFunc(echoHandler))
	w.http = httptest.NewServer(http.HandlerFunc(echoHandler))
	t.Cleanup(w.https.Close)
	t.Cleanup(w.http.Close)

	httpsAddr := w.https.Listener.Addr().String()
	httpAddr := w.http.Listener.Addr().String()
	var d net.Dialer
	guard := egress.NewGuard(&egress.Options{
		Resolver: testnet.Resolver{
			publicHost:  {netip.MustParseAddr(publicAddr)},
			deniedHost:  {netip.MustParseAddr(publicAddr)},
			privateHost: {netip.MustParseAddr("10.0.0.5")},
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			w.dials.Add(addr)
			switch {
			case addr == publicAddr+":443":
				return d.DialContext(ctx, "tcp", httpsAddr)
			case addr == publicAddr+":80":
				return d.DialContext(ctx, "tcp", httpAddr)
			}
			ap, err := netip.ParseAddrPort(addr)
			if err == nil && ap.Addr().IsLoopback() {
				return d.DialContext(ctx, network, addr)
			}
			// Never a packet off loopback, whatever the guard allowed.
			return nil, fmt.Errorf("test dial: %s is not part of the simulated internet", addr)
		},
	})
	opts := &Options{
		Scope:            &scope.Scope{Workspace: ws, Layers: testlayers.New(t, ws).Layers, Profile: o.profile},
		Guard:            guard,
		Audit:            audit.Open(ws),
		HandshakeTimeout: 5 * time.Second,
		IdleTimeout:      10 * time.Second,
		DialTimeout:      5 * time.Second,
	}
	if o.tune != nil {
		o.tune(opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.srv, w.addr = srv, ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v; want ErrServerClosed", err)
		}
	})
	return w
}

// allow saves an allow (or deny) rule for host:port.
func (w *world) rule(d rules.Decision, host string, port int) {
	w.t.Helper()
	p, err := capability.ParseHostPattern(host)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := rules.Add(context.Background(), w.ws, rules.NewRule(d, p, uint16(port))); err != nil {
		w.t.Fatal(err)
	}
}

// allowLocal puts port in local_fetch.json.
func (w *world) allowLocal(ports ...uint16) {
	w.t.Helper()
	if err := localfetch.WriteAllowedPorts(w.ws, localfetch.NewPorts(ports...)); err != nil {
		w.t.Fatal(err)
	}
}

// upstream listens on a free loopback port for a test's own upstream
// server, admits that port for local mode (local_fetch.json and an allow
// rule for host), and closes the listener when the test ends.
func (w *world) upstream(host string) (net.Listener, int) {
	w.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, host, port)
	return ln, port
}

// client returns an http.Client using the proxy for every request and
// trusting the fake public server's certificate.
func (w *world) client() *http.Client {
	pu := &url.URL{Scheme: "http", Host: w.addr}
	tr := &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{RootCAs: w.https.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, ServerName: "example.com"},
	}
	w.t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// raw sends head (a full request head and any body) on a new connection to
// the proxy and returns the response and its body. The body of a 2xx
// answer to CONNECT is "": what follows it is the tunnel's, not content
// (read to its end it would last until the connection's deadline).
func (w *world) raw(head string) (*http.Response, string) {
	w.t.Helper()
	c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
	if err != nil {
		w.t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		w.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		w.t.Fatalf("reading the proxy's response to %q: %v", firstLine(head), err)
	}
	if strings.HasPrefix(head, "CONNECT ") && resp.StatusCode/100 == 2 {
		return resp, ""
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\r\n")
	return l
}

func connectHead(target string) string {
	return "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n"
}

// auditLines returns the audit log's entries.
func (w *world) auditLines() []audit.Entry {
	w.t.Helper()
	es, err := audit.Read(w.ws, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	return es
}

// waitAudit waits until the audit log holds n entries: a line is written
// when a tunnel or request ends, which the client may see a moment before.
func (w *world) waitAudit(n int) []audit.Entry {
	w.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		es := w.auditLines()
		if len(es) >= n || time.Now().After(deadline) {
			return es
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func localPort(t *testing.T, s *httptest.Server) int {
	t.Helper()
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a.(*net.TCPConn), b.(*net.TCPConn)
}
