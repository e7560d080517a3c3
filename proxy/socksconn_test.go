package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/socks5"
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
	method := byte(socks5.MethodNone)
	if creds != nil {
		method = socks5.MethodUserPass
	}
	c.Write([]byte{5, 1, method})
	var sel [2]byte
	if _, err := io.ReadFull(br, sel[:]); err != nil {
		w.t.Fatalf("method selection: %v", err)
	}
	if sel[1] == socks5.MethodNoAcceptable {
		return 0x1FF, nil, nil
	}
	if sel[1] == socks5.MethodUserPass {
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
		if st[1] != socks5.AuthOK {
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
	if rep[0] != 5 || rep[3] != socks5.AtypIPv4 {
		w.t.Fatalf("reply %x is not a SOCKS5 reply with an IPv4 bound address", rep)
	}
	return int(rep[1]), c, br
}

// socksConnect is a CONNECT request for a domain name.
func socksConnect(name string, port uint16) []byte {
	b := []byte{5, socks5.CmdConnect, 0, socks5.AtypDomain, byte(len(name))}
	b = append(b, name...)
	return append(b, byte(port>>8), byte(port))
}

func socksIP(addr string, port uint16) []byte {
	a := netip.MustParseAddr(addr)
	atyp := byte(socks5.AtypIPv4)
	if a.Is6() {
		atyp = socks5.AtypIPv6
	}
	b := append([]byte{5, socks5.CmdConnect, 0, atyp}, a.AsSlice()...)
	return append(b, byte(port>>8), byte(port))
}

// TestSocksTarget: a request read by socks5.ReadRequest is judged as an
// HTTP CONNECT target is — CONNECT only, a port, a host that normalises to
// itself — and refused with the reply code clients show.
func TestSocksTarget(t *testing.T) {
	tests := []struct {
		name       string
		in         []byte
		wantTarget capability.Target
		wantRep    byte // the reply for a refused request; 0 = none
	}{
		{"CONNECT IPv4", []byte{5, 1, 0, 1, 93, 184, 216, 34, 1, 187}, capability.MustTarget("93.184.216.34", 443), 0},
		{"CONNECT IPv6", append(append([]byte{5, 1, 0, 4}, netip.MustParseAddr("2001:db8::1").AsSlice()...), 0, 80), capability.MustTarget("2001:db8::1", 80), 0},
		{"CONNECT domain", socksConnect("Example.COM.", 443), capability.MustTarget("example.com", 443), 0},
		{"CONNECT IDN domain", socksConnect("bücher.example", 443), capability.MustTarget("xn--bcher-kva.example", 443), 0},
		{"CONNECT domain holding an IP literal", socksConnect("127.0.0.1", 8080), capability.MustTarget("127.0.0.1", 8080), 0},
		{"BIND", []byte{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, socks5.CommandNotSupported},
		{"UDP ASSOCIATE", []byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, capability.Target{}, socks5.CommandNotSupported},
		{"unknown command", []byte{5, 9, 0, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, socks5.CommandNotSupported},
		{"port 0", socksConnect("example.com", 0), capability.Target{}, socks5.GeneralFailure},
		{"domain with a NUL", socksConnect("example.com\x00.evil", 443), capability.Target{}, socks5.NotAllowed},
		{"domain with a colon", socksConnect("example.com:80", 443), capability.Target{}, socks5.NotAllowed},
		{"domain with two trailing dots", socksConnect("localhost..", 8080), capability.Target{}, socks5.NotAllowed},
		{"non-canonical IPv4 as a domain", socksConnect("127.1", 8080), capability.Target{}, socks5.NotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := socks5.ReadRequest(bytes.NewReader(tc.in))
			if err != nil {
				t.Fatalf("socks5.ReadRequest: %v", err)
			}
			got, se := socksTarget(req)
			if se != nil {
				if se.Rep != tc.wantRep || tc.wantRep == 0 {
					t.Errorf("target: refused with %#x (%v); want reply %#x", se.Rep, se.Err, tc.wantRep)
				}
				return
			}
			if tc.wantRep != 0 {
				t.Fatalf("target: got %v; want a refusal with reply %#x", got, tc.wantRep)
			}
			if diff := cmp.Diff(tc.wantTarget, got); diff != "" {
				t.Errorf("target (-want +got)\n%s", diff)
			}
		})
	}
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
			if rep != socks5.Succeeded {
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
		if rep != socks5.Succeeded {
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
		{"uncovered name", socksConnect("uncovered.test", 80), socks5.NotAllowed, refusal.NotApproved},
		{"denied name", socksConnect(deniedHost, 80), socks5.NotAllowed, refusal.DeniedByRule},
		{"127.0.0.2", socksIP("127.0.0.2", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"RFC 1918", socksIP("10.0.0.1", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"metadata address", socksIP("169.254.169.254", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"IPv4-mapped loopback", socksIP("::ffff:127.0.0.1", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"unspecified IPv4", socksIP("0.0.0.0", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"unspecified IPv6", socksIP("::", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"metadata address as a name", socksConnect("169.254.169.254", 80), socks5.NotAllowed, refusal.AddressNotPublic},
		{"non-canonical IPv4 name", socksConnect("127.1", 80), socks5.NotAllowed, refusal.InvalidHost},
		{"two trailing dots", socksConnect("localhost..", uint16(port)), socks5.NotAllowed, refusal.InvalidHost},
		{"local port not allowlisted", socksConnect("localhost", 9), socks5.NotAllowed, refusal.LocalPortNotAllowed},
		{"BIND", []byte{5, socks5.CmdBind, 0, 1, 93, 184, 216, 34, 0, 80}, socks5.CommandNotSupported, refusal.InvalidArguments},
		{"UDP ASSOCIATE", []byte{5, socks5.CmdUDPAssociate, 0, 1, 0, 0, 0, 0, 0, 0}, socks5.CommandNotSupported, refusal.InvalidArguments},
		{"address type 2", []byte{5, 1, 0, 2, 1, 2, 3, 4, 0, 80}, socks5.AddrNotSupported, refusal.InvalidArguments},
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
	if rep, _, _ := w.socksDial(nil, socksConnect(privateHost, 80)); rep != socks5.NotAllowed {
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
		if e.Status != 0 {
			t.Errorf("audit line %+v: status %d; a SOCKS5 refusal has no HTTP status, and records none", e, e.Status)
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
