package fetch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/fetch"
)

// TestWriteOutput: the one renderer, for a model and for a person, shows
// what the server chose on one safe line each, and the content untouched
// unless a terminal reads it.
func TestWriteOutput(t *testing.T) {
	hostile := fetch.Output{
		Status:  200,
		URL:     "https://example.com/\x1b]0;pwned\x07",
		Title:   "Title\u202eevil",
		Headers: map[string]string{"server": "nginx\x1b[2J", "content-type": "text/plain"},
		Content: "body \x1b[31mred\x1b[0m",
		Notes:   []string{"a note\r\nX-Injected: 1"},
	}
	paged := fetch.Output{Status: 404, URL: "https://example.com/x", Content: "page\n", Truncated: true, Remaining: 7, NextStartIndex: 5, Bytes: 12}
	tests := []struct {
		name string
		out  fetch.Output
		opt  fetch.RenderOptions
		want []string // substrings, in order
		not  []string
	}{
		{"model", hostile, fetch.RenderOptions{},
			[]string{"HTTP 200 OK\nurl: https://example.com/", "\ntitle: Title", "\ncontent-type: text/plain\nserver: nginx", "\n\nbody \x1b[31mred\x1b[0m", "\n\n[a note"},
			[]string{"\x1b]0", "\x07", "\u202e", "\x1b[2J", "\r\n"}},
		{"person on a pipe", hostile, fetch.RenderOptions{For: fetch.ForPerson},
			[]string{"HTTP 200 OK\nurl: ", "\ntitle: Title", "\ncontent-type: text/plain\nserver: nginx", "\n\nbody \x1b[31mred\x1b[0m\n", "\n[a note"},
			[]string{"\x1b]0", "\u202e", "\x1b[2J", "\r\n"}},
		{"person on a terminal", hostile, fetch.RenderOptions{For: fetch.ForPerson, Terminal: true},
			[]string{"\n\nbody ", "red"},
			[]string{"\x1b"}},
		{"model reads on with start_index", paged, fetch.RenderOptions{},
			[]string{"HTTP 404 Not Found\n", "\n\npage\n", "\n\n[content truncated: 7 more characters; call again with start_index=5 to read on]"}, nil},
		{"person reads on with the flag", paged, fetch.RenderOptions{For: fetch.ForPerson},
			[]string{"\n\npage\n", "\n… 7 more characters: --start-index 5\n"}, []string{"start_index="}},
		{"saved to a file", paged, fetch.RenderOptions{For: fetch.ForPerson, SavedTo: "out\x1b.bin"},
			[]string{"\n\nwrote 12 bytes to out", ".bin\n"}, []string{"page", "\x1b", "start-index"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := fetch.WriteOutput(&b, tc.out, tc.opt); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output %q lacks %q (in order)", got, w)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("output %q holds %q", got, n)
				}
			}
			if tc.opt.For == fetch.ForModel && got != fetch.Render(tc.out) {
				t.Errorf("WriteOutput for a model %q differs from Render %q", got, fetch.Render(tc.out))
			}
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("closed pipe")
}

// TestWriteOutputError: the first write error is returned, and nothing is
// written after it.
func TestWriteOutputError(t *testing.T) {
	fw := &failWriter{}
	err := fetch.WriteOutput(fw, fetch.Output{Status: 200, URL: "https://example.com/", Content: "x", Notes: []string{"n"}}, fetch.RenderOptions{For: fetch.ForPerson})
	if err == nil || err.Error() != "closed pipe" || fw.n != 1 {
		t.Fatalf("err %v after %d writes; want the first error after one write", err, fw.n)
	}
}
