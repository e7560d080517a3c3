package loopback

import (
	"context"
	"net"
	"syscall"
	"testing"
)

// TestListenWithoutKeepAlive: a connection accepted on a loopback listener
// has no TCP keep-alive (both ends are on this machine).
func TestListenWithoutKeepAlive(t *testing.T) {
	ln, err := Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rc, err := a.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	v, gerr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) }); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	if v != 0 {
		t.Errorf("accepted connection: SO_KEEPALIVE = %d; want 0", v)
	}
}
