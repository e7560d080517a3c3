package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
)

func TestReadSocksGreeting(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    []byte
		wantErr error
	}{
		{"no authentication", []byte{5, 1, 0}, []byte{0}, nil},
		{"username/password", []byte{5, 1, 2}, []byte{2}, nil},
		{"both, and GSSAPI", []byte{5, 3, 0, 1, 2}, []byte{0, 1, 2}, nil},
		{"SOCKS4", []byte{4, 1, 0, 80, 1, 2, 3, 4, 0}, nil, errSocksMalformed},
		{"no method", []byte{5, 0}, nil, errSocksMalformed},
		{"methods cut short", []byte{5, 3, 0}, nil, io.ErrUnexpectedEOF},
		{"nothing", nil, nil, io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readSocksGreeting(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("methods: got %v; want %v", got, tc.want)
			}
		})
	}
}

func TestChooseSocksMethod(t *testing.T) {
	tests := []struct {
		name    string
		offered []byte
		auth    bool
		want    byte
	}{
		{"auth required, offered", []byte{0, 2}, true, socksMethodUserPass},
		{"auth required, only none offered", []byte{0}, true, socksMethodNoAcceptable},
		{"auth required, GSSAPI only", []byte{1}, true, socksMethodNoAcceptable},
		{"open, none offered", []byte{2, 0}, false, socksMethodNone},
		{"open, only username/password", []byte{2}, false, socksMethodUserPass},
		{"open, GSSAPI only", []byte{1}, false, socksMethodNoAcceptable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := chooseSocksMethod(tc.offered, tc.auth); got != tc.want {
				t.Errorf("got %#x; want %#x", got, tc.want)
			}
		})
	}
}

func TestReadSocksUserPass(t *testing.T) {
	tests := []struct {
		name       string
		in         []byte
		user, pass string
		wantErr    error
	}{
		{"user and password", append(append([]byte{1, 3}, "bob"...), append([]byte{2}, "pw"...)...), "bob", "pw", nil},
		{"wrong version", []byte{5, 1, 'a', 1, 'b'}, "", "", errSocksMalformed},
		{"empty user", []byte{1, 0, 1, 'b'}, "", "", errSocksMalformed},
		{"empty password", []byte{1, 1, 'a', 0}, "", "", errSocksMalformed},
		{"user cut short", []byte{1, 5, 'a'}, "", "", io.ErrUnexpectedEOF},
		{"no password length", []byte{1, 1, 'a'}, "", "", io.ErrUnexpectedEOF},
		{"password cut short", []byte{1, 1, 'a', 4, 'b'}, "", "", io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, p, err := readSocksUserPass(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if u != tc.user || p != tc.pass {
				t.Errorf("got %q, %q; want %q, %q", u, p, tc.user, tc.pass)
			}
		})
	}
}

// socksConnect is a CONNECT request for a domain name.
func socksConnect(name string, port uint16) []byte {
	b := []byte{5, socksCmdConnect, 0, socksAtypDomain, byte(len(name))}
	b = append(b, name...)
	return append(b, byte(port>>8), byte(port))
}

func TestReadSocksRequest(t *testing.T) {
	tests := []struct {
		name       string
		in         []byte
		wantTarget capability.Target
		wantRep    byte // the reply for a refused request; 0 = none
		wantErr    error
	}{
		{"CONNECT IPv4", []byte{5, 1, 0, 1, 93, 184, 216, 34, 1, 187}, capability.MustTarget("93.184.216.34", 443), 0, nil},
		{"CONNECT IPv6", append(append([]byte{5, 1, 0, 4}, netip.MustParseAddr("2001:db8::1").AsSlice()...), 0, 80), capability.MustTarget("2001:db8::1", 80), 0, nil},
		{"CONNECT domain", socksConnect("Example.COM.", 443), capability.MustTarget("example.com", 443), 0, nil},
		{"CONNECT IDN domain", socksConnect("bücher.example", 443), capability.MustTarget("xn--bcher-kva.example", 443), 0, nil},
		{"CONNECT domain holding an IP literal", socksConnect("127.0.0.1", 8080), capability.MustTarget("127.0.0.1", 8080), 0, nil},
		{"BIND", []byte{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, socksCommandNotSupported, nil},
		{"UDP ASSOCIATE", []byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, capability.Target{}, socksCommandNotSupported, nil},
		{"unknown command", []byte{5, 9, 0, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, socksCommandNotSupported, nil},
		{"unknown address type", []byte{5, 1, 0, 2, 1, 2, 3, 4, 0, 80}, capability.Target{}, socksAddrNotSupported, nil},
		{"empty domain", []byte{5, 1, 0, 3, 0, 0, 80}, capability.Target{}, socksGeneralFailure, nil},
		{"port 0", socksConnect("example.com", 0), capability.Target{}, socksGeneralFailure, nil},
		{"domain with a NUL", socksConnect("example.com\x00.evil", 443), capability.Target{}, socksNotAllowed, nil},
		{"domain with a colon", socksConnect("example.com:80", 443), capability.Target{}, socksNotAllowed, nil},
		{"domain with two trailing dots", socksConnect("localhost..", 8080), capability.Target{}, socksNotAllowed, nil},
		{"non-canonical IPv4 as a domain", socksConnect("127.1", 8080), capability.Target{}, socksNotAllowed, nil},
		{"wrong version", []byte{4, 1, 0, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, 0, errSocksMalformed},
		{"reserved byte set", []byte{5, 1, 1, 1, 1, 2, 3, 4, 0, 80}, capability.Target{}, 0, errSocksMalformed},
		{"IPv4 cut short", []byte{5, 1, 0, 1, 1, 2}, capability.Target{}, 0, io.ErrUnexpectedEOF},
		{"IPv6 cut short", []byte{5, 1, 0, 4, 1, 2, 3}, capability.Target{}, 0, io.ErrUnexpectedEOF},
		{"domain cut short", []byte{5, 1, 0, 3, 10, 'a'}, capability.Target{}, 0, io.ErrUnexpectedEOF},
		{"no port", []byte{5, 1, 0, 1, 1, 2, 3, 4}, capability.Target{}, 0, io.ErrUnexpectedEOF},
		{"header cut short", []byte{5, 1}, capability.Target{}, 0, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := readSocksRequest(bytes.NewReader(tc.in))
			var se *socksError
			if errors.As(err, &se) {
				if se.rep != tc.wantRep {
					t.Errorf("reply: got %#x; want %#x", se.rep, tc.wantRep)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			got, se := req.target()
			if se != nil {
				if se.rep != tc.wantRep || tc.wantRep == 0 {
					t.Errorf("target: refused with %#x (%v); want reply %#x", se.rep, se.err, tc.wantRep)
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

func TestSocksReplyFor(t *testing.T) {
	tests := []struct {
		code refusal.Code
		want byte
	}{
		{refusal.NotApproved, socksNotAllowed},
		{refusal.DeniedByRule, socksNotAllowed},
		{refusal.AddressNotPublic, socksNotAllowed},
		{refusal.ProxyAuthRequired, socksNotAllowed},
		{refusal.ConnectionFailed, socksConnectionRefused},
		{refusal.Timeout, socksTTLExpired},
		{refusal.InvalidArguments, socksGeneralFailure},
		{refusal.TooManyConnections, socksGeneralFailure},
	}
	for _, tc := range tests {
		if got := socksReplyFor(refusal.New(tc.code, "x")); got != tc.want {
			t.Errorf("%s: got %#x; want %#x", tc.code, got, tc.want)
		}
	}
}
