//go:build unix

package mcpstdio

import (
	"io"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// PollableInput returns an input that reads f through the runtime's
// poller when f is a blocking pipe or socket, as a client's stdin is
// (Node's child_process gives a socket, a shell pipeline a pipe); else f
// itself. out are the files the server writes to: f is left alone when it
// is one of them (the same pipe or socket both ways), since the
// non-blocking mode belongs to the file, not to one descriptor of it.
//
// A blocking read parks a whole thread in the kernel between two calls:
// the scheduler then keeps its monitor polling every 20–40 µs and wakes a
// thread for every message, which costs more CPU than the MCP work of a
// call. Read through the poller, an idle server sleeps until a line comes.
//
// The returned input reads a duplicate of f's descriptor in non-blocking
// mode; Close closes it, puts f back into blocking mode (the file
// outlives this process: it is the client's pipe) and closes f, as
// mcpserver's Options.Stdin promises. A Close also ends a pending Read,
// which a blocking read of stdin does not promise.
func PollableInput(f *os.File, out ...*os.File) io.ReadCloser {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	var in io.ReadCloser = f
	rc.Control(func(fd uintptr) {
		if !pollableKind(int(fd)) || sharesFile(int(fd), out) {
			return
		}
		// As os does for its own descriptors: not inherited by a command
		// started meanwhile (ocfetch run's sandbox, the PDF extractor).
		syscall.ForkLock.RLock()
		dup, err := unix.Dup(int(fd))
		if err == nil {
			unix.CloseOnExec(dup)
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			return
		}
		if err := unix.SetNonblock(dup, true); err != nil {
			unix.Close(dup)
			return
		}
		in = &polledInput{File: os.NewFile(uintptr(dup), f.Name()), orig: f}
	})
	return in
}

// pollableKind reports whether fd is a blocking pipe or socket the poller
// can wait on. Not a terminal (its mode is the user's shell's too) nor a
// regular file (never waits). On Darwin and the BSDs only sockets: kqueue
// does not report the last writer of a pipe going away.
func pollableKind(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		return false // already non-blocking: os.NewFile polled it, or someone else's mode
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return true
	case unix.S_IFIFO:
		return runtime.GOOS == "linux" || runtime.GOOS == "android"
	}
	return false
}

// sharesFile reports whether fd and one of files are the same pipe or
// socket (or the check cannot tell).
func sharesFile(fd int, files []*os.File) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return true
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		rc, err := f.SyscallConn()
		if err != nil {
			return true
		}
		same := true
		rc.Control(func(ofd uintptr) {
			var ost unix.Stat_t
			if unix.Fstat(int(ofd), &ost) == nil {
				same = ost.Dev == st.Dev && ost.Ino == st.Ino
			}
		})
		if same {
			return true
		}
	}
	return false
}

// polledInput is the non-blocking duplicate of orig that PollableInput
// reads.
type polledInput struct {
	*os.File
	orig *os.File
}

func (p *polledInput) Close() error {
	err := p.File.Close()
	if rc, cerr := p.orig.SyscallConn(); cerr == nil {
		rc.Control(func(fd uintptr) { unix.SetNonblock(int(fd), false) })
	}
	if oerr := p.orig.Close(); err == nil {
		err = oerr
	}
	return err
}
