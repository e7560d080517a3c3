package search

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestManyResultsBoundedMemory: an answer of DefaultMaxResponseBytes
// holding hundreds of thousands of tiny results ({} or null, 3 to 5
// bytes each) costs memory in proportion to the few results the tool can
// use, not some 72 bytes of bookkeeping per result plus 56 per hit: the
// first maxAnswerHits results are read, the rest only checked for the
// answer's shape.
func TestManyResultsBoundedMemory(t *testing.T) {
	fill := func(item string) string {
		n := (DefaultMaxResponseBytes - 64) / (len(item) + 1)
		return `{"results": [{"url": "https://go.dev/", "title": "Go"},` + strings.Repeat(item+",", n) + item + `]}`
	}
	tests := []struct {
		name, body string
	}{
		{"empty objects", fill(`{}`)},
		{"nulls", fill(`null`)},
		{"objects with an escaped title", fill(`{"title":"\u0041"}`)},
	}
	sx := backends(t)["searxng"]
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			var out Output
			alloc := allocated(func() {
				if _, err := present(&searxngAnswer, body, 10, &out); err != nil {
					t.Fatal(err)
				}
			})
			if len(out.Results) != 1 || out.Results[0].URL != "https://go.dev/" {
				t.Errorf("results %+v; want the one result", out.Results)
			}
			if max := uint64(4 * len(body)); alloc > max {
				t.Errorf("present allocated %d MB for a %d KB answer; want at most %d MB", alloc>>20, len(body)>>10, max>>20)
			}
			var hits []Hit
			alloc = allocated(func() {
				var err error
				if hits, err = sx.Parse(body); err != nil {
					t.Fatal(err)
				}
			})
			if len(hits) == 0 || len(hits) > maxAnswerHits || hits[0].URL != "https://go.dev/" {
				t.Errorf("Parse: %d hits; want 1 to %d, the first go.dev", len(hits), maxAnswerHits)
			}
			if max := uint64(4 * len(body)); alloc > max {
				t.Errorf("Parse allocated %d MB for a %d KB answer; want at most %d MB", alloc>>20, len(body)>>10, max>>20)
			}
		})
	}
}

// TestResultsPastTheCapStillChecked: a result after the first
// maxAnswerHits is not read, but the answer's shape is still checked
// there: not an object, or a title that is not a string, is malformed.
func TestResultsPastTheCapStillChecked(t *testing.T) {
	many := strings.Repeat(`{"url": "https://go.dev/"},`, maxAnswerHits+5)
	for _, bad := range []string{`7`, `"x"`, `{"title": 7}`, `{"url": ["x"]}`} {
		body := `{"results": [` + many + bad + `]}`
		var out Output
		if _, err := present(&searxngAnswer, []byte(body), 10, &out); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s past the cap: err %v; want ErrMalformed", bad, err)
		}
		if _, err := searxngAnswer.hits([]byte(body)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse, %s past the cap: err %v; want ErrMalformed", bad, err)
		}
	}
}

// allocated returns the bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
