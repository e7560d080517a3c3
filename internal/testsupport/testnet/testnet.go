package testnet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
)

// Resolver answers from a table; a name not in it does not exist (a
// *net.DNSError with IsNotFound). It never asks DNS. It satisfies the
// egress package's Resolver interface, as *net.Resolver does.
type Resolver map[string][]netip.Addr

// LookupNetIP returns the table's addresses for host.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// DialLog records the addresses a dial function was asked for. Its zero
// value is ready to use; it is safe for concurrent use.
type DialLog struct {
	mu    sync.Mutex
	addrs []string
}

// Add records one address.
func (l *DialLog) Add(address string) {
	l.mu.Lock()
	l.addrs = append(l.addrs, address)
	l.mu.Unlock()
}

// List returns a copy of the addresses recorded so far, in order.
func (l *DialLog) List() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.addrs...)
}

// Options tune [StartPublicTLS]. A nil *Options is the zero value.
type Options struct {
	// HTTP2 lets the server negotiate HTTP/2 as well as HTTP/1.1.
	HTTP2 bool
	// Only, if valid, is the one address Dial connects; any other address
	// fails the dial with an error (and is still recorded). If zero, every
	// address the guard passes is connected to the server.
	Only netip.AddrPort
	// SocketBuffer, if positive, is the send buffer (SO_SNDBUF) of every
	// connection the server accepts and the receive buffer (SO_RCVBUF) of
	// every connection Dial makes, which also turns the kernel's
	// autotuning of them off: what a handler managed to write is then
	// what the client read plus a few small buffers, so a test can count
	// on the server's side how much of a body the client read.
	SocketBuffer int
}

// PublicTLS is a loopback TLS server standing in for public https hosts.
type PublicTLS struct {
	// Server is the loopback httptest server; it is closed by the test's
	// cleanup (closing it earlier is allowed).
	Server *httptest.Server
	// RootCAs holds the server's certificate, for egress.Options.RootCAs.
	RootCAs *x509.CertPool
	// Dials records every address Dial was given.
	Dials DialLog

	only      netip.AddrPort
	socketBuf int
}

// StartPublicTLS starts a loopback TLS server with handler h. Its error log
// is discarded: tests that refuse a certificate or close a connection early
// cause handshake errors on purpose.
func StartPublicTLS(t testing.TB, h http.Handler, o *Options) *PublicTLS {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = o.HTTP2
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if o.SocketBuffer > 0 {
		srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
			if tc, ok := c.(*tls.Conn); ok && st == http.StateNew {
				if raw, ok := tc.NetConn().(*net.TCPConn); ok {
					raw.SetWriteBuffer(o.SocketBuffer)
				}
			}
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &PublicTLS{Server: srv, RootCAs: pool, only: o.Only, socketBuf: o.SocketBuffer}
}

// Dial has the shape of net.Dialer.DialContext, for egress.Options.Dial.
// It records address and connects to the loopback server whatever address
// the guard checked, so no packet leaves loopback. With Options.Only set,
// any other address is refused instead.
func (p *PublicTLS) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	p.Dials.Add(address)
	if p.only.IsValid() && address != p.only.String() {
		return nil, fmt.Errorf("test dial: unexpected address %s", address)
	}
	// "tcp", not network: the guard may dial a checked IPv6 address
	// ("tcp6"), and the server listens on 127.0.0.1.
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", p.Server.Listener.Addr().String())
	if tc, ok := c.(*net.TCPConn); ok && p.socketBuf > 0 {
		tc.SetReadBuffer(p.socketBuf)
	}
	return c, err
}
