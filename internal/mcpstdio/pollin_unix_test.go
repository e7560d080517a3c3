//go:build unix

package mcpstdio

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketPair returns the two ends of a blocking Unix socket pair, as a
// client's child_process stdio is.
func socketPair(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// TestPollableInputSocket: a blocking socket is read through the poller;
// Close ends a pending Read, puts the client's socket back into blocking
// mode and closes it.
func TestPollableInputSocket(t *testing.T) {
	server, client := socketPair(t)
	in := PollableInput(server, os.Stdout)
	p, ok := in.(*polledInput)
	if !ok {
		t.Fatalf("PollableInput = %T; want *polledInput", in)
	}
	if !nonblocking(t, p.File) {
		t.Error("the polled duplicate is in blocking mode")
	}
	if _, err := client.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "line\n" {
		t.Fatalf("Read = %q, %v; want %q", buf[:n], err, "line\n")
	}
	// A pending Read ends when the input is closed.
	done := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := in.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("pending Read after Close = %v; want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a pending Read did not end with Close")
	}
	// Both descriptors of the server's end are closed: the client sees EOF.
	if n, err := client.Read(buf); err != io.EOF {
		t.Errorf("client Read after Close = %d, %v; want EOF", n, err)
	}
}

// TestPollableInputRestoresBlocking: the file description the client
// handed over is in blocking mode again after Close.
func TestPollableInputRestoresBlocking(t *testing.T) {
	server, _ := socketPair(t)
	rc, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var dup int
	rc.Control(func(fd uintptr) { dup, err = unix.Dup(int(fd)) })
	if err != nil {
		t.Fatal(err)
	}
	keep := os.NewFile(uintptr(dup), "keep") // a second descriptor of the same description
	defer keep.Close()
	in := PollableInput(server)
	if _, ok := in.(*polledInput); !ok {
		t.Fatalf("PollableInput = %T; want *polledInput", in)
	}
	if !nonblocking(t, keep) {
		t.Fatal("the description is not non-blocking while polled")
	}
	in.Close()
	if nonblocking(t, keep) {
		t.Error("the description is still non-blocking after Close")
	}
}

// TestPollableInputLeftAlone: a regular file, a file the server also
// writes to, and an already non-blocking pipe are read as they are.
func TestPollableInputLeftAlone(t *testing.T) {
	regular, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	both, _ := socketPair(t)
	pr, pw, err := os.Pipe() // non-blocking, polled by os already
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		name string
		f    *os.File
		out  []*os.File
	}{
		{"regular file", regular, nil},
		{"also the output", both, []*os.File{os.Stderr, both}},
		{"os.Pipe", pr, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PollableInput(tc.f, tc.out...); got != io.ReadCloser(tc.f) {
				t.Errorf("PollableInput = %T; want the file itself", got)
			}
		})
	}
}
