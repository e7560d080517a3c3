package loopback

import (
	"context"
	"errors"
	"net"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		addr, want string
	}{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"127.0.0.2:8080", "127.0.0.2:8080"},
		{"[::1]:3128", "[::1]:3128"},
		{"[::ffff:127.0.0.1]:1", "127.0.0.1:1"},
		{"localhost:9", "127.0.0.1:9"},
		{"LocalHost:9", "127.0.0.1:9"},
		{"0.0.0.0:8080", ""},
		{":8080", ""},
		{"[::]:8080", ""},
		{"192.0.2.1:80", ""},
		{"[fe80::1%lo]:80", ""},
		{"[::1%lo]:80", ""},
		{"example.com:80", ""},
		{"127.0.0.1", ""},
	} {
		got, err := Check(tc.addr)
		if tc.want == "" {
			if !errors.Is(err, ErrNotLoopback) {
				t.Errorf("Check(%q) = %q, %v; want ErrNotLoopback", tc.addr, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Check(%q) = %q, %v; want %q", tc.addr, got, err, tc.want)
		}
	}
}

func TestListen(t *testing.T) {
	ln, err := Listen(context.Background(), "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !IsAddr(ln.Addr()) {
		t.Errorf("Listen(localhost:0) bound %v; want a loopback address", ln.Addr())
	}
	if IsAddr(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 80}) {
		t.Errorf("IsAddr(192.0.2.1:80) = true")
	}
}
