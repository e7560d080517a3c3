package socks5

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// connect is a CONNECT request for a domain name.
func connect(name string, port uint16) []byte {
	b := []byte{5, CmdConnect, 0, AtypDomain, byte(len(name))}
	b = append(b, name...)
	return append(b, byte(port>>8), byte(port))
}

// TestReadRequest: a request is read as sent, whatever its command, port
// or name (the server judges them); an address that cannot be read is
// answered with a reply code, and a request that is not SOCKS5 is
// malformed.
func TestReadRequest(t *testing.T) {
	v6 := netip.MustParseAddr("2001:db8::1")
	tests := []struct {
		name    string
		in      []byte
		want    Request
		wantRep byte // the reply for a refused request; 0 = none
		wantErr error
	}{
		{"CONNECT IPv4", []byte{5, 1, 0, 1, 93, 184, 216, 34, 1, 187}, Request{Cmd: CmdConnect, AddrType: AtypIPv4, Addr: netip.MustParseAddr("93.184.216.34"), Port: 443}, 0, nil},
		{"CONNECT IPv6", append(append([]byte{5, 1, 0, 4}, v6.AsSlice()...), 0, 80), Request{Cmd: CmdConnect, AddrType: AtypIPv6, Addr: v6, Port: 80}, 0, nil},
		{"CONNECT domain, as sent", connect("Example.COM.", 443), Request{Cmd: CmdConnect, AddrType: AtypDomain, Name: "Example.COM.", Port: 443}, 0, nil},
		{"CONNECT IDN domain, as sent", connect("bücher.example", 443), Request{Cmd: CmdConnect, AddrType: AtypDomain, Name: "bücher.example", Port: 443}, 0, nil},
		{"domain with a NUL, as sent", connect("example.com\x00.evil", 443), Request{Cmd: CmdConnect, AddrType: AtypDomain, Name: "example.com\x00.evil", Port: 443}, 0, nil},
		{"port 0", connect("example.com", 0), Request{Cmd: CmdConnect, AddrType: AtypDomain, Name: "example.com", Port: 0}, 0, nil},
		{"BIND", []byte{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, Request{Cmd: CmdBind, AddrType: AtypIPv4, Addr: netip.MustParseAddr("1.2.3.4"), Port: 80}, 0, nil},
		{"UDP ASSOCIATE", []byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, Request{Cmd: CmdUDPAssociate, AddrType: AtypIPv4, Addr: netip.IPv4Unspecified()}, 0, nil},
		{"unknown command", []byte{5, 9, 0, 1, 1, 2, 3, 4, 0, 80}, Request{Cmd: 9, AddrType: AtypIPv4, Addr: netip.MustParseAddr("1.2.3.4"), Port: 80}, 0, nil},
		{"unknown address type", []byte{5, 1, 0, 2, 1, 2, 3, 4, 0, 80}, Request{}, AddrNotSupported, nil},
		{"empty domain", []byte{5, 1, 0, 3, 0, 0, 80}, Request{}, GeneralFailure, nil},
		{"wrong version", []byte{4, 1, 0, 1, 1, 2, 3, 4, 0, 80}, Request{}, 0, ErrMalformed},
		{"reserved byte set", []byte{5, 1, 1, 1, 1, 2, 3, 4, 0, 80}, Request{}, 0, ErrMalformed},
		{"IPv4 cut short", []byte{5, 1, 0, 1, 1, 2}, Request{}, 0, io.ErrUnexpectedEOF},
		{"IPv6 cut short", []byte{5, 1, 0, 4, 1, 2, 3}, Request{}, 0, io.ErrUnexpectedEOF},
		{"domain cut short", []byte{5, 1, 0, 3, 10, 'a'}, Request{}, 0, io.ErrUnexpectedEOF},
		{"no port", []byte{5, 1, 0, 1, 1, 2, 3, 4}, Request{}, 0, io.ErrUnexpectedEOF},
		{"header cut short", []byte{5, 1}, Request{}, 0, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadRequest(bytes.NewReader(tc.in))
			var se *Error
			if errors.As(err, &se) {
				if se.Rep != tc.wantRep || tc.wantRep == 0 {
					t.Errorf("reply: got %#x (%v); want %#x", se.Rep, se.Err, tc.wantRep)
				}
				return
			}
			if tc.wantRep != 0 {
				t.Fatalf("got %+v, %v; want a refusal with reply %#x", got, err, tc.wantRep)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("request (-want +got)\n%s", diff)
			}
		})
	}
}

// TestReadRequestLeavesTheRest: nothing past the request is read, so a
// tunnel's first bytes stay in the caller's reader.
func TestReadRequestLeavesTheRest(t *testing.T) {
	r := bytes.NewReader(append(connect("example.com", 443), "GET / HTTP/1.1\r\n"...))
	if _, err := ReadRequest(r); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "GET / HTTP/1.1\r\n" {
		t.Errorf("left in the reader: %q; want the tunnel's first bytes", rest)
	}
}

func TestCommandName(t *testing.T) {
	for c, want := range map[byte]string{CmdBind: "BIND", CmdUDPAssociate: "UDP ASSOCIATE", CmdConnect: "1", 9: "9"} {
		if got := CommandName(c); got != want {
			t.Errorf("CommandName(%d): got %q; want %q", c, got, want)
		}
	}
}
