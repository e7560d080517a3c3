package egress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// mapResolver answers from a fixed map and counts calls. A host it does not
// know is an error wrapping errNoSuchHost.
type mapResolver struct {
	answers map[string][]netip.Addr
	calls   atomic.Int32
}

var errNoSuchHost = errors.New("no such host (test resolver)")

func newMapResolver(m map[string][]string) *mapResolver {
	r := &mapResolver{answers: map[string][]netip.Addr{}}
	for host, addrs := range m {
		for _, a := range addrs {
			r.answers[host] = append(r.answers[host], netip.MustParseAddr(a))
		}
	}
	return r
}

func (r *mapResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	r.calls.Add(1)
	if network != "ip" {
		return nil, errors.New("test resolver: network must be ip")
	}
	a, ok := r.answers[host]
	if !ok {
		return nil, errNoSuchHost
	}
	return a, nil
}

// seqResolver answers each call with the next answer of its list: a DNS
// rebinding attacker.
type seqResolver struct {
	mu      sync.Mutex
	answers [][]netip.Addr
}

func (r *seqResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.answers) == 0 {
		return nil, errNoSuchHost
	}
	a := r.answers[0]
	r.answers = r.answers[1:]
	return a, nil
}

// failResolver fails the test if the guard asks DNS at all.
type failResolver struct{ t *testing.T }

func (r failResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.t.Errorf("resolver called for %q; want no DNS lookup", host)
	return nil, errNoSuchHost
}

// recordingDial records every address it is given and connects to target
// instead (a loopback test server), or fails with err when target is "".
type recordingDial struct {
	mu     sync.Mutex
	got    []string
	target string
	err    error
	d      net.Dialer
}

func (r *recordingDial) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	r.mu.Lock()
	r.got = append(r.got, address)
	r.mu.Unlock()
	if r.target == "" {
		if r.err != nil {
			return nil, r.err
		}
		return nil, errors.New("recordingDial: no target")
	}
	return r.d.DialContext(ctx, "tcp", r.target)
}

func (r *recordingDial) addresses() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// noDial fails the test if the guard dials anything.
func noDial(t *testing.T) DialFunc {
	return func(_ context.Context, _, address string) (net.Conn, error) {
		t.Errorf("dial called with %s; want no dial", address)
		return nil, errors.New("noDial")
	}
}

// countingListener is a loopback TCP listener that counts the connections
// it accepts, to prove that nothing reached it.
type countingListener struct {
	ln   net.Listener
	n    atomic.Int32
	done chan struct{}
	Port uint16
	Addr string
	// conns carries the remote address of every accepted connection.
	conns chan string
	// markers counts the marker connections accepted dialled.
	markers int
}

func newCountingListener(t *testing.T) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingListener{ln: ln, done: make(chan struct{}), conns: make(chan string, 64),
		Addr: ln.Addr().String(), Port: uint16(ln.Addr().(*net.TCPAddr).Port)}
	go func() {
		defer close(c.done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.n.Add(1)
			c.conns <- conn.RemoteAddr().String()
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-c.done })
	return c
}

// accepted returns how many connections other than its marker connections
// reached the listener so far: it dials a marker and waits until the
// listener has accepted that very connection (known by its address), so
// every connection that reached the listener before it has been accepted
// and counted too (accept order is FIFO).
func (c *countingListener) accepted(t *testing.T) int {
	t.Helper()
	conn, err := net.Dial("tcp4", c.Addr)
	if err != nil {
		t.Fatal(err)
	}
	marker := conn.LocalAddr().String()
	conn.Close()
	c.markers++
	deadline := time.After(5 * time.Second)
	for {
		select {
		case addr := <-c.conns:
			if addr == marker {
				return int(c.n.Load()) - c.markers
			}
		case <-deadline:
			t.Fatal("marker connection not accepted")
		}
	}
}

// newTLSServer starts a loopback HTTPS server whose self-signed certificate
// is valid for names, and returns it with a pool trusting that certificate.
// configure, if not nil, adjusts the server's TLS config before it starts.
func newTLSServer(t *testing.T, h http.Handler, names []string, configure func(*tls.Config)) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: names[0]},
		DNSNames:              names,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}}
	if configure != nil {
		configure(srv.TLS)
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pool
}

// loopbackServer starts a plain HTTP server on 127.0.0.1 and returns it
// with its port.
func loopbackServer(t *testing.T, h http.Handler) (*httptest.Server, uint16) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
}

func helloHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte("hello from " + r.Host))
}

// headerFlood is a hostile server handler that sends n bytes of response
// headers.
func headerFlood(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := make([]byte, 1000)
		for i := range v {
			v[i] = 'a'
		}
		for i := 0; i*1000 < n; i++ {
			w.Header().Add("X-Flood", string(v))
		}
		w.WriteHeader(http.StatusOK)
	}
}

// newClient returns a NewClient client whose idle connections are closed
// when the test ends (goleak would see their goroutines otherwise).
func newClient(t *testing.T, opts *Options) *http.Client {
	t.Helper()
	c := NewClient(opts)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// discardLogger is a *log.Logger for http.Server.ErrorLog that drops
// everything.
func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
