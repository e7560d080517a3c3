package testnet

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// ConnectProxy is an upstream HTTP proxy on loopback (a corporate proxy,
// for the tests of egress.Options.Upstream): it records the target and the
// Proxy-Authorization of every request, answers CONNECT with Status (200
// unless set), and then tunnels to Forward — a loopback server — whatever
// target was asked, so no packet leaves the machine. Set its fields before
// the first request.
type ConnectProxy struct {
	// Forward is the loopback "ip:port" every tunnel connects to.
	Forward string
	// Status, if not 0 or 200, is the answer to every CONNECT.
	Status int
	// WantAuth, if set, is the Proxy-Authorization value a CONNECT must
	// carry; without it the answer is 407.
	WantAuth string

	ln      net.Listener
	mu      sync.Mutex
	targets []string
	auths   []string
	wg      sync.WaitGroup
}

// StartConnectProxy starts a ConnectProxy forwarding to forward; the
// test's cleanup stops it and waits for its connections.
func StartConnectProxy(t testing.TB, forward string) *ConnectProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &ConnectProxy{ln: ln, Forward: forward}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// StartTLSConnectProxy is StartConnectProxy for an https:// proxy: the
// listener speaks TLS with net/http/httptest's test certificate (valid
// for 127.0.0.1), and the returned pool trusts it — the test CA an
// operator would give with --ca-file. The same certificate serves
// StartPublicTLS, so one pool trusts the proxy and the target.
func StartTLSConnectProxy(t testing.TB, forward string) (*ConnectProxy, *x509.CertPool) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	cert := srv.TLS.Certificates[0]
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	srv.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	p := &ConnectProxy{ln: ln, Forward: forward}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p, pool
}

// Addr is the proxy's "127.0.0.1:port".
func (p *ConnectProxy) Addr() string { return p.ln.Addr().String() }

// URL is the proxy's http://127.0.0.1:port.
func (p *ConnectProxy) URL() string { return "http://" + p.Addr() }

// Seen returns "METHOD target" of every request so far, and the
// Proxy-Authorization each carried ("" when none), in order.
func (p *ConnectProxy) Seen() (targets, auths []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...), append([]string(nil), p.auths...)
}

func (p *ConnectProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.handle(c) }()
	}
}

func (p *ConnectProxy) handle(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, req.Method+" "+req.Host)
	p.auths = append(p.auths, req.Header.Get("Proxy-Authorization"))
	p.mu.Unlock()
	status := p.Status
	if status == 0 {
		status = http.StatusOK
	}
	if p.WantAuth != "" && req.Header.Get("Proxy-Authorization") != p.WantAuth {
		status = http.StatusProxyAuthRequired
	}
	if req.Method != http.MethodConnect || status != http.StatusOK {
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", status, http.StatusText(status))
		return
	}
	up, err := net.Dial("tcp", p.Forward)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer up.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	c.SetDeadline(time.Time{})
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, br); closeWrite(up); done <- struct{}{} }()
	go func() { io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	switch tc := c.(type) {
	case *net.TCPConn:
		tc.CloseWrite()
	case *tls.Conn:
		tc.CloseWrite()
	}
}
