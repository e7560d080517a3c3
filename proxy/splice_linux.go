//go:build linux

package proxy

import (
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// splicer moves the bytes of one tunnel direction from one TCP connection
// to the other through a kernel pipe of its own (splice(2)), so that bulk
// data never crosses user space. The pipe is made when the direction first
// goes bulk and closed with the direction ([splicer.close]): a tunnel's
// descriptors live exactly as long as the tunnel. (net.TCPConn.ReadFrom
// splices too, but keeps its pipes in a sync.Pool that only a garbage
// collection empties: after a burst of tunnels an idle proxy held dozens
// of pipes for minutes.) Bytes a deadline leaves in the pipe stay there
// and are written first by the next call, never dropped.
type splicer struct {
	r, w   int // the pipe's read and write ends; -1 before it is made
	inPipe int // bytes read into the pipe and not yet written out
}

func newSplicer() *splicer { return &splicer{r: -1, w: -1} }

// close closes the pipe, if it was made.
func (s *splicer) close() {
	if s.r >= 0 {
		unix.Close(s.r)
		unix.Close(s.w)
		s.r, s.w = -1, -1
	}
}

// splice moves up to max bytes from src to dst and reports how many it
// wrote to dst, whether src reached its end, and the first error (a
// deadline's os.ErrDeadlineExceeded among them). ok is false, with nothing
// moved, when the two are not both TCP connections or no pipe could be
// made: the caller copies through a buffer then.
func (s *splicer) splice(dst, src net.Conn, max int) (n int64, eof, ok bool, err error) {
	d, dok := dst.(*net.TCPConn)
	sc, sok := src.(*net.TCPConn)
	if !dok || !sok {
		return 0, false, false, nil
	}
	if s.r < 0 {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
			return 0, false, false, nil
		}
		s.r, s.w = p[0], p[1]
		// A larger pipe moves a chunk in fewer calls; the default (64 KiB)
		// works too, so a refusal (the user's pipe quota) is no error.
		unix.FcntlInt(uintptr(s.w), unix.F_SETPIPE_SZ, tunnelChunk)
	}
	drc, err := d.SyscallConn()
	if err != nil {
		return 0, false, true, err
	}
	srcRC, err := sc.SyscallConn()
	if err != nil {
		return 0, false, true, err
	}
	if s.inPipe > 0 {
		w, err := s.pump(drc)
		n += w
		if err != nil {
			return n, false, true, err
		}
	}
	for n < int64(max) {
		var got int64
		var serr error
		rerr := srcRC.Read(func(fd uintptr) bool {
			for {
				got, serr = unix.Splice(int(fd), nil, s.w, nil, max-int(n), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				if serr != unix.EINTR {
					break
				}
			}
			return serr != unix.EAGAIN // EAGAIN: nothing to read yet (the pipe is empty here)
		})
		switch {
		case rerr != nil:
			return n, false, true, rerr
		case serr != nil:
			return n, false, true, os.NewSyscallError("splice", serr)
		case got == 0:
			return n, true, true, nil
		}
		s.inPipe += int(got)
		w, err := s.pump(drc)
		n += w
		if err != nil {
			return n, false, true, err
		}
	}
	return n, false, true, nil
}

// pump writes what the pipe holds to dst.
func (s *splicer) pump(dst syscall.RawConn) (int64, error) {
	var n int64
	for s.inPipe > 0 {
		var w int64
		var serr error
		werr := dst.Write(func(fd uintptr) bool {
			for {
				w, serr = unix.Splice(s.r, nil, int(fd), nil, s.inPipe, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				if serr != unix.EINTR {
					break
				}
			}
			return serr != unix.EAGAIN // EAGAIN: the socket's send buffer is full
		})
		switch {
		case werr != nil:
			return n, werr
		case serr != nil:
			return n, os.NewSyscallError("splice", serr)
		}
		s.inPipe -= int(w)
		n += w
	}
	return n, nil
}
