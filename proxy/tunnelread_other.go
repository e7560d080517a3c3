//go:build !unix

package proxy

import "net"

// readPooled reads once from src into a buffer from bufPool and returns
// the buffer with what was read (the caller puts it back). Elsewhere than
// on Unix the buffer is held while the read waits (see the Unix version).
func readPooled(src net.Conn) (*[]byte, int, error) {
	return readPooledBlocking(src)
}
