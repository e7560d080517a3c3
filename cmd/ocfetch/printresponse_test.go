package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/download"
	"github.com/ocfetch/ocfetch/fetch"
)

// countingWriter records each Write it is given.
type countingWriter struct {
	b      strings.Builder
	writes int
	fail   bool
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.fail {
		return 0, errors.New("broken pipe")
	}
	return w.b.Write(p)
}

// TestPrintResponseWritesOnce: get prints a response in one write (a
// page past the 64 KiB buffer in a few), and prints exactly what the
// renderer writes unbuffered.
func TestPrintResponseWritesOnce(t *testing.T) {
	tests := []struct {
		name       string
		content    string
		terminal   bool
		saved      bool
		wantWrites int
	}{
		{"10 KB page", strings.Repeat("The quick brown fox.\n", 500), false, false, 1},
		{"10 KB page on a terminal", strings.Repeat("The quick brown fox.\n", 500), true, false, 1},
		{"saved to a file", "", false, true, 1},
		{"empty content", "", false, false, 1},
		{"1 MB page", strings.Repeat("x", 1<<20), false, false, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := fetch.Output{Status: 200, URL: "http://127.0.0.1:8080/p", Title: "Ten KB",
				Headers: map[string]string{"content-type": "text/html"}, Content: tc.content,
				Bytes: int64(len(tc.content)), Notes: []string{"a note"}}
			f := getFlags{}
			var sink *download.File
			opt := fetch.RenderOptions{For: fetch.ForPerson, Terminal: tc.terminal}
			if tc.saved {
				f.output = "report.pdf"
				sink = &download.File{}
				opt.SavedTo = f.output
			}
			var want strings.Builder
			if err := fetch.WriteOutput(&want, out, opt); err != nil {
				t.Fatal(err)
			}
			var w countingWriter
			printResponse(&w, out, f, sink, tc.terminal)
			if w.b.String() != want.String() {
				t.Errorf("printed %d bytes, not what the renderer writes (%d bytes)", w.b.Len(), want.Len())
			}
			if w.writes > tc.wantWrites {
				t.Errorf("%d writes; want at most %d", w.writes, tc.wantWrites)
			}
		})
	}
	t.Run("a failing writer", func(t *testing.T) {
		w := countingWriter{fail: true}
		printResponse(&w, fetch.Output{Status: 200, Content: "x"}, getFlags{}, nil, false)
		if w.writes != 1 {
			t.Errorf("%d writes to a broken pipe; want 1", w.writes)
		}
	})
}
