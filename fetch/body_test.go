package fetch

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ocfetch/ocfetch/internal/boundedread"
	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

func response(body io.Reader, contentLength int64, encoding string) *http.Response {
	h := http.Header{}
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	return &http.Response{Body: io.NopCloser(body), ContentLength: contentLength, Header: h}
}

func TestReadBody(t *testing.T) {
	const limit = 100 << 10
	text := strings.Repeat("x", limit)
	errReset := errors.New("connection reset by peer")
	tests := []struct {
		name     string
		resp     *http.Response
		wantLen  int
		wantCut  bool
		wantErr  error
		maxAlloc int
	}{
		{"empty", response(strings.NewReader(""), 0, ""), 0, false, nil, 1},
		{"short, length unknown", response(strings.NewReader("hello"), -1, ""), 5, false, nil, boundedread.FirstChunk},
		{"short, length known", response(strings.NewReader("hello"), 5, ""), 5, false, nil, 6},
		{"exactly the cap", response(strings.NewReader(text), limit, ""), limit, false, nil, limit + 1},
		{"exactly the cap, length unknown", response(strings.NewReader(text), -1, ""), limit, false, nil, limit + 1},
		{"one byte over", response(strings.NewReader(text+"y"), -1, ""), limit, true, nil, limit + 1},
		{"length lies low", response(strings.NewReader(text+"y"), 10, ""), limit, true, nil, limit + 1},
		{"declared huge", response(strings.NewReader("abc"), 1<<40, ""), 3, false, nil, limit + 1},
		{"declared the largest Content-Length net/http accepts", response(strings.NewReader("abc"), math.MaxInt64, ""), 3, false, nil, limit + 1},
		{"endless", response(testio.Endless{}, -1, ""), limit, true, nil, limit + 1},
		{"gzip not decoded by the transport", response(bytes.NewReader(hostile.GzipBombBytes(1<<20)), -1, "gzip"), limit, true, nil, limit + 1},
		{"gzip small", response(bytes.NewReader(hostile.GzipBombBytes(10)), -1, "GZIP"), 10, false, nil, boundedread.FirstChunk},
		{"gzip empty body", response(strings.NewReader(""), 0, "gzip"), 0, false, nil, 0},
		{"gzip corrupt", response(strings.NewReader("not gzip at all"), -1, "gzip"), 0, false, errBadEncoding, 0},
		{"reset mid-body", response(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(errReset)), 100, ""), 4, false, errReset, 101},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, cut, err := readBody(tc.resp, limit, 0)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v; want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if len(body) != tc.wantLen || cut != tc.wantCut {
				t.Errorf("read %d bytes, cut %v; want %d, %v", len(body), cut, tc.wantLen, tc.wantCut)
			}
			if cap(body) > tc.maxAlloc {
				t.Errorf("buffer capacity %d; want at most %d", cap(body), tc.maxAlloc)
			}
		})
	}
}

// TestReadBodyGrowth: with the default cap, a body that never ends
// allocates the doubling buffers up to 1 MiB and then one of cap+1 bytes.
func TestReadBodyGrowth(t *testing.T) {
	resps := make([]*http.Response, 4) // AllocsPerRun calls f runs+1 times
	for i := range resps {
		resps[i] = response(testio.Endless{}, -1, "")
	}
	n := 0
	allocs := testing.AllocsPerRun(3, func() {
		_, _, _ = readBody(resps[n], DefaultMaxBodyBytes, 0)
		n++
	})
	// 32K, 64K, ... 1M (6 buffers), then cap+1: 7.
	if allocs > 7 {
		t.Errorf("%v allocations for an endless body; want at most 7", allocs)
	}
}
