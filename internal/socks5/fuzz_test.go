package socks5

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzHandshake feeds arbitrary bytes to the readers in the order a
// connection runs them: greeting, username/password, request. A greeting
// accepted offers a method; a request accepted has a destination of its
// address type; every request answered with a reply carries a failure
// reply code and a one-line message.
func FuzzHandshake(f *testing.F) {
	seeds := [][]byte{
		// greeting (no auth), CONNECT to a domain
		append([]byte{5, 1, 0}, connect("example.com", 443)...),
		// greeting (user/pass), credentials, CONNECT IPv4
		{5, 1, 2, 1, 1, 'u', 1, 'p', 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90},
		// CONNECT IPv6 (IPv4-mapped loopback)
		{5, 1, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1, 0, 80},
		// BIND, UDP ASSOCIATE, an unknown address type
		{5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80},
		{5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0},
		{5, 1, 0, 5, 1, 0, 9, 1, 2, 3, 4, 0, 80},
		// an empty domain, a domain with a NUL
		{5, 1, 0, 5, 1, 0, 3, 0, 0, 80},
		append([]byte{5, 1, 0}, connect("a\x00b", 443)...),
		// truncated everywhere
		{5}, {5, 2, 0}, {5, 1, 2, 1, 9},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		methods, err := ReadGreeting(r)
		if err != nil {
			return
		}
		if len(methods) == 0 {
			t.Fatalf("greeting %x accepted with no method", in)
		}
		if ChooseMethod(methods, true) == MethodUserPass {
			if _, _, err := ReadUserPass(r); err != nil {
				return
			}
		}
		req, err := ReadRequest(r)
		var se *Error
		if errors.As(err, &se) {
			checkError(t, se)
			return
		}
		if err != nil {
			return
		}
		switch req.AddrType {
		case AtypIPv4:
			if !req.Addr.Is4() || req.Name != "" {
				t.Errorf("IPv4 request %+v", req)
			}
		case AtypIPv6:
			if !req.Addr.Is6() || req.Name != "" {
				t.Errorf("IPv6 request %+v", req)
			}
		case AtypDomain:
			if req.Name == "" || req.Addr.IsValid() {
				t.Errorf("domain request %+v", req)
			}
		default:
			t.Errorf("request %+v accepted with address type %d", req, req.AddrType)
		}
	})
}

func checkError(t *testing.T, se *Error) {
	t.Helper()
	if se.Rep == Succeeded || se.Err == nil || se.Err.Code == "" || strings.ContainsAny(se.Err.Message, "\r\n") {
		t.Errorf("refusal %#x %+v: want a failure reply, a code and a one-line message", se.Rep, se.Err)
	}
}
