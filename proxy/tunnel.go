package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/refusal"
)

// tunnelChunk is how many bytes one splice call may move before the copy
// loop regains control to count them and refresh deadlines.
const tunnelChunk = 1 << 20

// spliceAfter is how many bytes a direction moves through a buffer before
// it switches to splice(2). Most tunnels carry a TLS handshake and a small
// exchange, for which two splice calls and a kernel pipe per segment cost
// more than a read and a write; a bulk transfer passes this in its first
// few segments and then never copies through user space.
const spliceAfter = 64 << 10

// bufPool holds the copy buffers of tunnels: every direction's first
// spliceAfter bytes, and all of them between connections that are not
// both plain TCP on Linux (where the kernel splices, see [splicer]).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// buffersOut counts the tunnel buffers taken from bufPool and not put
// back: what the proxy's tunnels hold at the moment (a quiet tunnel on
// Unix holds none, see readPooled).
var buffersOut atomic.Int64

// takeBuffer takes a tunnel buffer from bufPool; putBuffer puts it back.
func takeBuffer() *[]byte {
	buffersOut.Add(1)
	return bufPool.Get().(*[]byte)
}

func putBuffer(bp *[]byte) {
	bufPool.Put(bp)
	buffersOut.Add(-1)
}

// tunnel serves an admitted CONNECT: it dials the target through the guard,
// answers "200 Connection established" and relays bytes both ways (see
// [Server.relay]).
func (s *Server) tunnel(cc *clientConn, x *exchange) {
	up, r := s.dialUpstream(cc, x)
	if r != nil {
		s.refuseHTTP(cc, x, r)
		return
	}
	if up == nil {
		return
	}
	x.status = http.StatusOK
	if !s.answerOpen(cc, x, []byte("HTTP/1.1 200 Connection established\r\n\r\n")) {
		return
	}
	s.relay(cc, up, x)
}

// dialUpstream dials an admitted exchange's target through the guard and
// ties the connection to cc. It returns the refusal to answer when the
// dial failed (recorded on x), or a nil conn and nil refusal when cc was
// closed meanwhile (shutdown).
func (s *Server) dialUpstream(cc *clientConn, x *exchange) (net.Conn, *refusal.Error) {
	target := x.req.target.String()
	dctx, cancel := context.WithTimeout(x.v.ctx, s.dialTO)
	up, err := s.guard.DialContext(dctx, "tcp", target)
	cancel()
	if err != nil {
		r := dialRefusal(err, target)
		x.refuse(r)
		s.log.Log(context.Background(), diag.L2, "tunnel dial failed", "target", target, "reason", string(r.Code))
		return nil, r
	}
	if !cc.setUpstream(up) {
		up.Close()
		x.outcome = "shutdown"
		return nil, nil
	}
	return up, nil
}

// answerOpen writes the answer that opens a tunnel (HTTP 200 or the SOCKS5
// success reply) within the handshake timeout.
func (s *Server) answerOpen(cc *clientConn, x *exchange, answer []byte) bool {
	cc.c.SetWriteDeadline(s.now().Add(s.handshake))
	if _, err := cc.c.Write(answer); err != nil {
		x.outcome = "client_closed"
		return false
	}
	cc.c.SetWriteDeadline(time.Time{})
	s.log.Log(context.Background(), diag.L3, "tunnel open", "target", x.req.target.String())
	return true
}

// relay copies bytes both ways between cc and up until both sides have
// closed, one side fails, or no byte moved either way for the idle
// timeout. It returns with both connections closed and no goroutine left
// behind.
func (s *Server) relay(cc *clientConn, up net.Conn, x *exchange) {
	// Bytes the client sent after its CONNECT head (a TLS ClientHello sent
	// without waiting for the 200) are already in the reader's buffer.
	if n := cc.br.Buffered(); n > 0 {
		b, _ := cc.br.Peek(n)
		up.SetWriteDeadline(s.now().Add(s.idle))
		w, err := up.Write(b)
		x.up += int64(w)
		if err != nil {
			return
		}
		cc.br.Discard(n)
	}
	// From here on the tunnel reads and writes the connections
	// themselves: the client's 4 KiB reader and writer go back to their
	// pools now, not when the tunnel ends.
	cc.release()

	t := &pipe{idle: s.idle, now: s.now}
	var upN int64
	var upErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		upN, upErr = t.copy(up, cc.c, 0)
		if upErr != nil {
			// Unblock the other direction at once.
			cc.close()
		} else {
			closeWrite(up)
		}
	}()
	downN, downErr := t.copy(cc.c, up, 1)
	if downErr != nil {
		cc.close()
	} else {
		closeWrite(cc.c)
	}
	<-done
	x.up += upN
	x.down = downN
	switch {
	case upErr == nil && downErr == nil:
	case isIdleTimeout(upErr) || isIdleTimeout(downErr):
		x.outcome = "idle_timeout"
	default:
		x.outcome = "closed"
	}
}

// pipe is the state the two directions of a tunnel share: whether each is
// idle, for the idle timeout that needs both.
type pipe struct {
	idle time.Duration
	now  func() time.Time
	// idleSide[i] is set while direction i has just waited a whole idle
	// period without a byte.
	idleSide [2]atomic.Bool
}

// errIdle marks a tunnel closed for idleness.
var errIdle = errors.New("tunnel idle")

func isIdleTimeout(err error) bool { return errors.Is(err, errIdle) }

// copy moves bytes from src to dst until src reaches EOF (nil error) or
// either side fails. Deadlines are refreshed on every chunk; a deadline
// that expires after some bytes moved, or while the other direction is
// busy, is not idleness and the copy goes on. The tunnel is idle — and the
// copy returns errIdle — when both directions have waited a whole period
// with nothing to move.
func (p *pipe) copy(dst, src net.Conn, side int) (int64, error) {
	var total int64
	sp := newSplicer()
	defer sp.close()
	for {
		deadline := p.now().Add(p.idle)
		src.SetReadDeadline(deadline)
		dst.SetWriteDeadline(deadline)
		n, eof, err := copyChunk(dst, src, total >= spliceAfter, sp)
		total += n
		if n > 0 {
			p.idleSide[side].Store(false)
		}
		if err == nil {
			if eof {
				// A finished direction counts as idle: the other one
				// alone decides when the tunnel has gone quiet.
				p.idleSide[side].Store(true)
				return total, nil
			}
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return total, err
		}
		if n > 0 {
			continue
		}
		p.idleSide[side].Store(true)
		if p.idleSide[1-side].Load() {
			return total, errIdle
		}
	}
}

// copyChunk copies up to tunnelChunk bytes. With bulk set, between two
// TCP connections on Linux, the kernel splices them through sp's pipe
// (see [splicer]); otherwise it copies through a pooled buffer, one read
// at a time. eof reports that src is exhausted.
func copyChunk(dst, src net.Conn, bulk bool, sp *splicer) (n int64, eof bool, err error) {
	if bulk {
		if n, eof, ok, err := sp.splice(dst, src, tunnelChunk); ok {
			return n, eof, err
		}
	}
	bp, nr, rerr := readPooled(src)
	if bp != nil {
		defer putBuffer(bp)
	}
	if nr > 0 {
		nw, werr := dst.Write((*bp)[:nr])
		n = int64(nw)
		if werr != nil {
			return n, false, werr
		}
	}
	if rerr == io.EOF {
		return n, true, nil
	}
	return n, false, rerr
}

// readPooledBlocking is net.Conn.Read into a buffer from bufPool, held
// while the read waits.
func readPooledBlocking(src net.Conn) (*[]byte, int, error) {
	bp := takeBuffer()
	n, err := src.Read(*bp)
	return bp, n, err
}

// closeWrite half-closes c when it supports it (TCP, TLS), so the peer sees
// EOF while the other direction goes on.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}
