//go:build unix

package proxy

import (
	"io"
	"net"
	"syscall"
)

// readPooled reads once from src into a buffer from bufPool ([takeBuffer]) and returns
// the buffer with what was read (the caller puts it back; nil when
// nothing was taken). For a socket (a *net.TCPConn or *net.UnixConn: the client's TCP
// connection, a directly dialed upstream) the buffer is taken only once
// the socket is readable, so a tunnel waiting for its next bytes holds no
// 32 KiB buffer in either direction: a proxy with many quiet tunnels
// (kept-alive TLS connections) keeps none of their buffers alive. Any
// other conn (a TLS connection to an upstream proxy) is read as
// net.Conn.Read reads it, holding the buffer while it waits.
//
// The errors are net.Conn.Read's: io.EOF at the end, the deadline's error
// (os.ErrDeadlineExceeded, wrapped) when the read deadline passes, the
// read's own error otherwise.
func readPooled(src net.Conn) (*[]byte, int, error) {
	// Only the socket types themselves: a conn that embeds one (a
	// peeking or counting wrapper) has a Read of its own to call.
	var sc syscall.Conn
	switch c := src.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return readPooledBlocking(src)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return readPooledBlocking(src)
	}
	var (
		bp   *[]byte
		n    int
		rerr error
	)
	err = rc.Read(func(fd uintptr) bool {
		bp = takeBuffer()
		for {
			n, rerr = syscall.Read(int(fd), *bp)
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			// Not readable yet: wait without the buffer.
			putBuffer(bp)
			bp = nil
			return false
		}
		return true
	})
	if n < 0 {
		n = 0
	}
	switch {
	case err != nil: // the deadline, or the connection closed meanwhile
		return bp, n, err
	case rerr != nil:
		return bp, n, &net.OpError{Op: "read", Net: src.LocalAddr().Network(), Source: src.LocalAddr(), Addr: src.RemoteAddr(), Err: rerr}
	case n == 0:
		return bp, 0, io.EOF
	}
	return bp, n, nil
}
