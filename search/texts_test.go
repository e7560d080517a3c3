package search

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// checkPresent holds present to Parse, clean and Render on body (the
// owned path), and checks that nothing present returns points into body
// or its scratch: every text of the results lies in the content, and
// scribbling over body and the pooled scratches changes nothing.
func checkPresent(t *testing.T, name string, be Backend, body []byte, count int) {
	t.Helper()
	sh := be.(interface{ answer() *answerShape }).answer()
	mine := append([]byte(nil), body...)
	wantHits, wantErr := be.Parse(body)
	out := Output{Backend: name, Host: "h.example"}
	content, err := present(sh, mine, count, &out)
	if (err == nil) != (wantErr == nil) || (err != nil && (!errors.Is(err, ErrMalformed) || err.Error() != wantErr.Error())) {
		t.Fatalf("%s: present error %v; Parse's %v", name, err, wantErr)
	}
	if err != nil {
		return
	}
	want := Output{Backend: name, Host: "h.example"}
	want.Results, want.Dropped = clean(wantHits, count)
	want.Count = len(want.Results)
	wantContent := Render(want)
	within := func(s string) bool {
		p, c := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(content)))
		return s == "" || (p >= c && p+uintptr(len(s)) <= c+uintptr(len(content)))
	}
	for _, h := range out.Results {
		for _, s := range []string{h.Title, h.URL, h.Snippet} {
			if !within(s) {
				t.Fatalf("%s: the text %q is not the content's own", name, s)
			}
		}
	}
	for _, h := range out.Results[len(out.Results):cap(out.Results)] {
		if h != (Hit{}) {
			t.Fatalf("%s: a hit left out, %+v, is still in the results' array", name, h)
		}
	}
	// Whatever the pools hand out next is written over, as the next call
	// would; so is the body.
	for range 4 {
		sc := getScratch()
		sc.buf = sc.buf[:cap(sc.buf)]
		for i := range sc.buf {
			sc.buf[i] = 'X'
		}
		defer sc.release()
	}
	for i := range mine {
		mine[i] = 'X'
	}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("%s: present's output differs from Parse, clean and Render's (-want +got):\n%s", name, d)
	}
	if content != wantContent {
		t.Errorf("%s: present's content\n%s\nRender's\n%s", name, content, wantContent)
	}
}

func TestPresentIsParseCleanRender(t *testing.T) {
	long := strings.Repeat("é", maxSnippetRunes+5)
	results := []string{
		`{"url": " https://a.example/x ", "title": " Caf\u00e9 \"r\u00e9sum\u00e9\"\n", "content": "line1\r\nline2\u202e"}`,
		`{"url": "https://b.example/", "title": null, "content": null}`,
		`{"url": "javascript:alert(1)", "title": "dropped", "content": "x"}`,
		`null`,
		`{"title": "no url"}`,
		`{"url": "HTTPS://C.example/%41", "title": "` + strings.Repeat("t", maxTitleRunes+1) + `", "content": "` + long + `"}`,
		`{"url": "https://d.example/\ud83d\ude00", "title": "\u0000\u001b[31m", "content": "   "}`,
		`{"url": "https://e.example/", "title": "e", "content": "e"}`,
	}
	bodies := map[string]string{
		"searxng": `{"results": [` + strings.Join(results, ",") + `]}`,
		"tavily":  `{"results": [` + strings.Join(results, ",") + `]}`,
		"brave":   `{"type": "search", "web": {"results": [` + strings.ReplaceAll(strings.Join(results, ","), `"content"`, `"description"`) + `]}}`,
	}
	for name, be := range backends(t) {
		for _, count := range []int{1, 3, DefaultResults, MaxResults} {
			checkPresent(t, name, be, []byte(bodies[name]), count)
		}
		for _, body := range []string{searxngDoc, braveDoc, tavilyDoc, `{"results": []}`, `{"type": "search"}`, `{"results": [1]}`, `{`} {
			checkPresent(t, name, be, []byte(body), DefaultResults)
		}
	}
}
