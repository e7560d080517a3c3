package boundedread

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

func TestAppend(t *testing.T) {
	const limit = 1000
	text := strings.Repeat("x", limit)
	reset := errors.New("connection reset by peer")
	for _, tc := range []struct {
		name     string
		buf      []byte
		r        io.Reader
		declared int64
		wantLen  int // of the body, past the prefix
		wantOver bool
		wantErr  error
		maxCap   int
	}{
		{"empty", nil, strings.NewReader(""), 0, 0, false, nil, 1},
		{"declared sizes the buffer", nil, strings.NewReader("hello"), 5, 5, false, nil, 6},
		{"unknown length starts at FirstChunk, bounded by the cap", nil, strings.NewReader("hello"), -1, 5, false, nil, limit + 1},
		{"exactly the cap", nil, strings.NewReader(text), -1, limit, false, nil, limit + 1},
		{"one byte over", nil, strings.NewReader(text + "y"), -1, limit, true, nil, limit + 1},
		{"declared length lies low", nil, strings.NewReader(text + "y"), 10, limit, true, nil, limit + 1},
		{"declared length huge", nil, strings.NewReader("abc"), 1 << 40, 3, false, nil, limit + 1},
		{"endless", nil, testio.Endless{}, -1, limit, true, nil, limit + 1},
		{"a pooled buffer with room is used as it is", make([]byte, 0, 64), strings.NewReader("hello"), -1, 5, false, nil, 64},
		{"a pooled buffer too small for the declared length is replaced once", make([]byte, 0, 4), strings.NewReader("hello"), 5, 5, false, nil, 6},
		{"prefix kept", []byte("head:"), strings.NewReader("body"), 4, 4, false, nil, 5 + 5},
		{"read error", nil, io.MultiReader(strings.NewReader("part"), iotest.ErrReader(reset)), 100, 4, false, reset, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := string(tc.buf)
			got, over, err := Append(tc.buf, tc.r, tc.declared, limit)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v; want %v", err, tc.wantErr)
			}
			if len(got)-len(prefix) != tc.wantLen || over != tc.wantOver {
				t.Errorf("read %d bytes, over %v; want %d, %v", len(got)-len(prefix), over, tc.wantLen, tc.wantOver)
			}
			if string(got[:len(prefix)]) != prefix {
				t.Errorf("prefix %q became %q", prefix, got[:len(prefix)])
			}
			if cap(got) > tc.maxCap {
				t.Errorf("buffer capacity %d; want at most %d", cap(got), tc.maxCap)
			}
		})
	}
}

func TestReadLeavesRoom(t *testing.T) {
	got, over, err := Read(strings.NewReader("body"), 16, 4, 100)
	if err != nil || over {
		t.Fatalf("Read: over %v, err %v", over, err)
	}
	if len(got) != 20 || string(got[16:]) != "body" || cap(got) != 21 {
		t.Fatalf("Read = %q (cap %d); want 16 bytes of room, then body, in one buffer of 21", got, cap(got))
	}
	if allocs := testing.AllocsPerRun(10, func() { Read(strings.NewReader("body"), 16, 4, 100) }); allocs > 2 {
		t.Errorf("%v allocations; want the buffer (and the reader) only", allocs)
	}
}

// TestGrowth: a body that never ends allocates the doubling buffers up to
// GrowLimit and then one of limit+1 bytes, and never reads past the cap.
func TestGrowth(t *testing.T) {
	const limit = 8 << 20
	var got []byte
	allocs := testing.AllocsPerRun(3, func() {
		got, _, _ = Read(testio.Endless{}, 0, -1, limit)
	})
	// 32K, 64K, ... 1M (6 buffers), then limit+1: 7.
	if allocs > 7 {
		t.Errorf("%v allocations for an endless body; want at most 7", allocs)
	}
	if len(got) != limit || cap(got) != limit+1 {
		t.Errorf("read %d bytes into %d; want %d into %d", len(got), cap(got), limit, limit+1)
	}
}
