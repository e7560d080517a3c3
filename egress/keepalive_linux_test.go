package egress

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/capability"
)

// TestLoopbackDialWithoutKeepAlive: the default dialer dials local mode's
// admitted loopback address without TCP keep-alive (nothing to detect on
// loopback, four system calls spared), and the connection still passes
// the Control check (a port not admitted is refused, as ever).
func TestLoopbackDialWithoutKeepAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	g := NewGuard(&Options{Timeout: 5 * time.Second})
	for _, tc := range []struct {
		name     string
		admitted uint16
		wantErr  bool
	}{
		{"admitted port", port, false},
		{"other port admitted", port + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := WithLoopback(context.Background(), capability.MustTarget("127.0.0.1", tc.admitted))
			c, err := g.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
			if tc.wantErr {
				if err == nil {
					c.Close()
					t.Fatal("dial of a port local mode did not admit succeeded; want a refusal")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := keepAlive(t, c); got != 0 {
				t.Errorf("SO_KEEPALIVE = %d; want 0", got)
			}
		})
	}
}

func keepAlive(t *testing.T, c net.Conn) int {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := rc.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) }); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	return v
}
