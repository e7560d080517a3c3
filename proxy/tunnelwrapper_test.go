package proxy

import (
	"net"
	"testing"
	"time"
)

type prefixTCP struct {
	*net.TCPConn
	pre []byte
}

func (c *prefixTCP) Read(p []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(p, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.TCPConn.Read(p)
}

func TestReadPooledCallsWrapperRead(t *testing.T) {
	a, b := tcpPair(t)
	src := &prefixTCP{TCPConn: a, pre: []byte("PEEKED")}
	go b.Write([]byte("rest"))
	src.SetReadDeadline(time.Now().Add(2 * time.Second))
	bp, n, err := readPooled(src)
	if bp != nil {
		defer putBuffer(bp)
	}
	if got := string((*bp)[:n]); got != "PEEKED" {
		t.Errorf("readPooled on a net.Conn whose Read is its own: got %q, %v; want the conn's Read (\"PEEKED\")", got, err)
	}
}
