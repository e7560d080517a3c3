package proxy

import (
	"bufio"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// socksDial opens a SOCKS5 connection to the proxy and runs the greeting
// (with user/pass when creds is not nil) and request. It returns the reply
// code of the request, or the auth status (as 0x100+status) or 0x1FF when
// no method was acceptable, and the connection for a successful CONNECT.
func (w *world) socksDial(creds *Credentials, req []byte) (int, net.Conn, *bufio.Reader) {
	w.t.Helper()
	c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	method := byte(socksMethodNone)
	if creds != nil {
		method = socksMethodUserPass
	}
	c.Write([]byte{5, 1, method})
	var sel [2]byte
	if _, err := io.ReadFull(br, sel[:]); err != nil {
		w.t.Fatalf("method selection: %v", err)
	}
	if sel[1] == socksMethodNoAcceptable {
		return 0x1FF, nil, nil
	}
	if sel[1] == socksMethodUserPass {
		if creds == nil {
			w.t.Fatal("proxy chose username/password, which was not offered")
		}
		m := []byte{1, byte(len(creds.User))}
		m = append(m, creds.User...)
		m = append(m, byte(len(creds.Password)))
		c.Write(append(m, creds.Password...))
		var st [2]byte
		if _, err := io.ReadFull(br, st[:]); err != nil {
			w.t.Fatalf("auth status: %v", err)
		}
		if st[1] != socksAuthOK {
			if _, err := br.ReadByte(); err != io.EOF {
				w.t.Errorf("after an auth failure: got %v; want the connection closed", err)
			}
			return 0x100 + int(st[1]), nil, nil
		}
	}
	c.Write(req)
	var rep [10]byte
	if _, err := io.ReadFull(br, rep[:]); err != nil {
		w.t.Fatalf("reply: %v", err)
	}
	if rep[0] != 5 || rep[3] != socksAtypIPv4 {
		w.t.Fatalf("reply %x is not a SOCKS5 reply with an IPv4 bound address", rep)
	}
	return int(rep[1]), c, br
}

func socksIP(addr string, port uint16) []byte {
	a := netip.MustParseAddr(addr)
	atyp := byte(socksAtypIPv4)
	if a.Is6() {
		atyp = socksAtypIPv6
	}
	b := append([]byte{5, socksCmdConnect, 0, atyp}, a.AsSlice()...)
	return append(b, byte(port>>8), byte(port))
}

// TestSocksThroughProxy: SOCKS5 CONNECT reaches what a rule allows, by
// name (resolved by the proxy through the guard) or by address, gets the
// same audit line as HTTP CONNECT, and is refused with "not allowed by
// ruleset" for every hostile host form of the HTTP tests — with no dial.
func TestSocksThroughProxy(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) {
		o.Refused = func(r Refusal) { mu.Lock(); lines = append(lines, r.Line()); mu.Unlock() }
	}})
	w.rule(rules.Allow, publicHost, 80)
	w.rule(rules.Allow, publicAddr, 80)
	w.rule(rules.Deny, deniedHost, 80)
	w.rule(rules.Allow, privateHost, 80)
	for _, h := range []string{"127.0.0.2", "10.0.0.1", "169.254.169.254", "::ffff:127.0.0.1", "0.0.0.0", "::"} {
		w.rule(rules.Allow, h, 80)
	}
	ln, port := w.upstream("localhost")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()

	for _, tc := range []struct {
		name string
		req  []byte
		want string
	}{
		{"a domain name", socksConnect(publicHost, 80), "hello from " + publicHost},
		{"an IPv4 address", socksIP(publicAddr, 80), "hello from " + publicHost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, c, br := w.socksDial(nil, tc.req)
			if rep != socksSucceeded {
				t.Fatalf("reply: got %#x; want success", rep)
			}
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+publicHost+"\r\nConnection: close\r\n\r\n")
			b, _ := io.ReadAll(br)
			if !strings.HasSuffix(string(b), tc.want) {
				t.Errorf("response: got %q; want it to end %q", b, tc.want)
			}
		})
	}
	t.Run("loopback through local mode", func(t *testing.T) {
		rep, c, br := w.socksDial(nil, socksConnect("localhost", uint16(port)))
		if rep != socksSucceeded {
			t.Fatalf("reply: got %#x; want success", rep)
		}
		io.WriteString(c, "ping")
		got := make([]byte, 4)
		if _, err := io.ReadFull(br, got); err != nil || string(got) != "ping" {
			t.Errorf("echo: got %q, %v; want ping", got, err)
		}
	})
	dialsBefore := len(w.dials.List())
	refused := []struct {
		name string
		req  []byte
		rep  int
		code refusal.Code
	}{
		{"uncovered name", socksConnect("uncovered.test", 80), socksNotAllowed, refusal.NotApproved},
		{"denied name", socksConnect(deniedHost, 80), socksNotAllowed, refusal.DeniedByRule},
		{"127.0.0.2", socksIP("127.0.0.2", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"RFC 1918", socksIP("10.0.0.1", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"metadata address", socksIP("169.254.169.254", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"IPv4-mapped loopback", socksIP("::ffff:127.0.0.1", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"unspecified IPv4", socksIP("0.0.0.0", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"unspecified IPv6", socksIP("::", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"metadata address as a name", socksConnect("169.254.169.254", 80), socksNotAllowed, refusal.AddressNotPublic},
		{"non-canonical IPv4 name", socksConnect("127.1", 80), socksNotAllowed, refusal.InvalidHost},
		{"two trailing dots", socksConnect("localhost..", uint16(port)), socksNotAllowed, refusal.InvalidHost},
		{"local port not allowlisted", socksConnect("localhost", 9), socksNotAllowed, refusal.LocalPortNotAllowed},
		{"BIND", []byte{5, socksCmdBind, 0, 1, 93, 184, 216, 34, 0, 80}, socksCommandNotSupported, refusal.InvalidArguments},
		{"UDP ASSOCIATE", []byte{5, socksCmdUDPAssociate, 0, 1, 0, 0, 0, 0, 0, 0}, socksCommandNotSupported, refusal.InvalidArguments},
		{"address type 2", []byte{5, 1, 0, 2, 1, 2, 3, 4, 0, 80}, socksAddrNotSupported, refusal.InvalidArguments},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			if rep, _, _ := w.socksDial(nil, tc.req); rep != tc.rep {
				t.Errorf("reply: got %#x; want %#x", rep, tc.rep)
			}
		})
	}
	if got := w.dials.List()[dialsBefore:]; len(got) != 0 {
		t.Errorf("refused SOCKS requests dialled %v; want none", got)
	}
	// A name that resolves to a private address is refused by the guard at
	// dial time, before any connection.
	if rep, _, _ := w.socksDial(nil, socksConnect(privateHost, 80)); rep != socksNotAllowed {
		t.Errorf("%s: reply %#x; want not allowed", privateHost, rep)
	}

	es := w.waitAudit(len(refused) + 1)
	var codes []string
	for _, e := range es {
		if !strings.HasPrefix(e.Summary, "CONNECT ") && !strings.HasPrefix(e.Summary, "SOCKS-") {
			t.Errorf("audit summary %q; want CONNECT host", e.Summary)
		}
		if e.Outcome == "ok" {
			t.Errorf("audit line %+v: ok; want only the refusals before the tunnels close", e)
		}
		codes = append(codes, e.Outcome)
	}
	for _, tc := range refused {
		if !strings.Contains(strings.Join(codes, " "), string(tc.code)) {
			t.Errorf("no audit line with outcome %s (got %v)", tc.code, codes)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{
		"ocfetch: refused CONNECT uncovered.test:80: not_approved (file " + w.ws.RulesPath() + ") — ask the user to allow it; the user can run: ocfetch rules allow uncovered.test:80",
		"ocfetch: refused CONNECT '[::ffff:127.0.0.1]:80': address_not_public — ",
		"ocfetch: refused SOCKS-UDP-ASSOCIATE: invalid_arguments — ",
	} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no refusal line %q in %q", want, lines)
		}
	}
	if len(lines) != len(refused)+1 {
		t.Errorf("refusal lines: got %d; want one per refusal, %d", len(lines), len(refused)+1)
	}
}
