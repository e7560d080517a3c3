package socks5

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestReadGreeting(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    []byte
		wantErr error
	}{
		{"no authentication", []byte{5, 1, 0}, []byte{0}, nil},
		{"username/password", []byte{5, 1, 2}, []byte{2}, nil},
		{"both, and GSSAPI", []byte{5, 3, 0, 1, 2}, []byte{0, 1, 2}, nil},
		{"SOCKS4", []byte{4, 1, 0, 80, 1, 2, 3, 4, 0}, nil, ErrMalformed},
		{"no method", []byte{5, 0}, nil, ErrMalformed},
		{"methods cut short", []byte{5, 3, 0}, nil, io.ErrUnexpectedEOF},
		{"nothing", nil, nil, io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadGreeting(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("methods: got %v; want %v", got, tc.want)
			}
		})
	}
}

func TestChooseMethod(t *testing.T) {
	tests := []struct {
		name    string
		offered []byte
		auth    bool
		want    byte
	}{
		{"auth required, offered", []byte{0, 2}, true, MethodUserPass},
		{"auth required, only none offered", []byte{0}, true, MethodNoAcceptable},
		{"auth required, GSSAPI only", []byte{1}, true, MethodNoAcceptable},
		{"open, none offered", []byte{2, 0}, false, MethodNone},
		{"open, only username/password", []byte{2}, false, MethodUserPass},
		{"open, GSSAPI only", []byte{1}, false, MethodNoAcceptable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChooseMethod(tc.offered, tc.auth); got != tc.want {
				t.Errorf("got %#x; want %#x", got, tc.want)
			}
		})
	}
}

func TestReadUserPass(t *testing.T) {
	tests := []struct {
		name       string
		in         []byte
		user, pass string
		wantErr    error
	}{
		{"user and password", append(append([]byte{1, 3}, "bob"...), append([]byte{2}, "pw"...)...), "bob", "pw", nil},
		{"wrong version", []byte{5, 1, 'a', 1, 'b'}, "", "", ErrMalformed},
		{"empty user", []byte{1, 0, 1, 'b'}, "", "", ErrMalformed},
		{"empty password", []byte{1, 1, 'a', 0}, "", "", ErrMalformed},
		{"user cut short", []byte{1, 5, 'a'}, "", "", io.ErrUnexpectedEOF},
		{"no password length", []byte{1, 1, 'a'}, "", "", io.ErrUnexpectedEOF},
		{"password cut short", []byte{1, 1, 'a', 4, 'b'}, "", "", io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, p, err := ReadUserPass(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v; want %v", err, tc.wantErr)
			}
			if u != tc.user || p != tc.pass {
				t.Errorf("got %q, %q; want %q, %q", u, p, tc.user, tc.pass)
			}
		})
	}
}
