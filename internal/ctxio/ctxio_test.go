package ctxio_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/ctxio"
)

// TestReaderReads: before ctx ends, the reader reads what r has, to EOF.
func TestReaderReads(t *testing.T) {
	b, err := io.ReadAll(ctxio.NewReader(context.Background(), strings.NewReader("once\n")))
	if err != nil || string(b) != "once\n" {
		t.Fatalf("ReadAll = %q, %v; want \"once\\n\", nil", b, err)
	}
}

// TestReaderGivesUp: a read waiting on r returns ctx's error when ctx is
// cancelled, and a read after that does not wait at all.
func TestReaderGivesUp(t *testing.T) {
	pr, pw := io.Pipe() // nothing is ever written: a read waits
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := ctxio.NewReader(ctx, pr)
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel = %v; want context.Canceled", err)
	}
	if n, err := r.Read(make([]byte, 8)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("second Read = %d, %v; want 0, context.Canceled", n, err)
	}
}
