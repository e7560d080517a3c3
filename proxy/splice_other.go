//go:build !linux

package proxy

import "net"

// splicer is splice(2) on Linux; elsewhere a tunnel copies through a
// pooled buffer, and splice always declines.
type splicer struct{}

func newSplicer() *splicer { return &splicer{} }

func (*splicer) close() {}

func (*splicer) splice(net.Conn, net.Conn, int) (n int64, eof, ok bool, err error) {
	return 0, false, false, nil
}
