package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/scope"
)

// TestProxyMetricsFlagLoopbackOnly: --metrics listens on loopback only,
// as --listen does.
func TestProxyMetricsFlagLoopbackOnly(t *testing.T) {
	root := newRoot(t)
	for _, addr := range []string{"0.0.0.0:9464", "192.168.1.2:9464", ":9464", "nonsense"} {
		ocfetch(t, cliOptions{}, "--root", root, "proxy", "--listen", "127.0.0.1:0", "--metrics", addr).want(t, exitUsage, nil, []string{"--metrics"})
	}
}

// countingListener counts the connections accepted from it.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// TestProxyMetricsConnectionsBounded: the metrics listener, open to every
// local user before the credentials are checked, holds at most
// maxMetricsConns connections at once (as the proxy's own listener and
// the MCP server's do): clients that open many connections and send an
// unfinished request head cannot hold a descriptor and a goroutine each
// in the proxy's process. Once they go, a scrape with the credentials is
// served.
func TestProxyMetricsConnectionsBounded(t *testing.T) {
	creds := proxy.Credentials{User: "ocfetch", Password: "metrics-test-pass"}
	s, err := proxy.New(&proxy.Options{Scope: &scope.Scope{Workspace: wsOf(t, newRoot(t))}, Auth: &creds})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	stop := serveMetricsOn(a, s, cl, true)
	defer stop()

	for _, tc := range []struct {
		name  string
		conns int
		head  string // what each connection sends, never finished
	}{
		{"silent", 4 * maxMetricsConns, ""},
		{"unfinished head", 4 * maxMetricsConns, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := cl.accepted.Load()
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for range tc.conns {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				if tc.head != "" {
					c.Write([]byte(tc.head))
				}
			}
			// Give the server the time to accept all it will.
			deadline := time.Now().Add(500 * time.Millisecond)
			for time.Now().Before(deadline) && cl.accepted.Load()-before < int64(tc.conns) {
				time.Sleep(10 * time.Millisecond)
			}
			if got := cl.accepted.Load() - before; got > maxMetricsConns {
				t.Errorf("%d of %d connections accepted at once; want at most %d", got, tc.conns, maxMetricsConns)
			}
			for _, c := range conns {
				c.Close()
			}
			conns = nil
			req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/metrics", nil)
			req.SetBasicAuth(creds.User, creds.Password)
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("scrape after the clients left: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("scrape after the clients left: %s", resp.Status)
			}
		})
	}
}

// TestProxyMetricsLineSaysWhoMayScrape: the line --metrics prints says
// what the listener does: behind the proxy's credentials (Basic), or,
// under --auth none, open to every local user — never "credentials" for a
// listener that asks for none.
func TestProxyMetricsLineSaysWhoMayScrape(t *testing.T) {
	creds := proxy.Credentials{User: "ocfetch", Password: "metrics-test-pass"}
	for _, tc := range []struct {
		name       string
		auth       *proxy.Credentials
		say, never string
		anonymous  int // the status of a scrape without credentials
	}{
		{"credentials", &creds, "the proxy's credentials as Basic auth", "--auth none", http.StatusUnauthorized},
		{"auth none", nil, "open to every user of this machine (--auth none)", "credentials", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := proxy.New(&proxy.Options{Scope: &scope.Scope{Workspace: wsOf(t, newRoot(t))}, Auth: tc.auth})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			a := newApp(strings.NewReader(""), io.Discard, &stderr)
			stop := serveMetricsOn(a, s, ln, tc.auth != nil)
			defer stop()
			if line := stderr.String(); !strings.Contains(line, tc.say) || strings.Contains(line, tc.never) {
				t.Errorf("stderr %q; want it to say %q, not %q", line, tc.say, tc.never)
			}
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
			resp, err := client.Get("http://" + ln.Addr().String() + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.anonymous {
				t.Errorf("a scrape without credentials: %s; want %d", resp.Status, tc.anonymous)
			}
		})
	}
}
