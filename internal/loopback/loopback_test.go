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
		{"127.9.9.9:0", "127.9.9.9:0"},
		{"LOCALHOST:0", "127.0.0.1:0"},
		{"10.0.0.1:8080", ""},
		{"[::ffff:10.0.0.1]:80", ""},
		{"localhost.example.com:8080", ""},
		{"", ""},
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
	for _, addr := range []string{"localhost:0", "127.0.0.1:0", "[::ffff:127.0.0.1]:0"} {
		ln, err := Listen(context.Background(), addr)
		if err != nil {
			t.Fatalf("Listen(%s): %v", addr, err)
		}
		if !IsAddr(ln.Addr()) {
			t.Errorf("Listen(%s) bound %v; want a loopback address", addr, ln.Addr())
		}
		ln.Close()
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "example.com:0"} {
		if ln, err := Listen(context.Background(), addr); !errors.Is(err, ErrNotLoopback) {
			if err == nil {
				ln.Close()
			}
			t.Errorf("Listen(%s) = %v; want ErrNotLoopback before anything is bound", addr, err)
		}
	}
	if IsAddr(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 80}) {
		t.Errorf("IsAddr(192.0.2.1:80) = true")
	}
}
