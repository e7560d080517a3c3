package fetch

import (
	"strings"
	"testing"
	"unsafe"
)

// TestRenderOver: the text renderOver returns is Render's, byte for byte,
// whether the head is written over the body's room (the body not copied)
// or the output is rendered anew; the room is used only when the text ends
// with the content and the content is the body from its first byte.
func TestRenderOver(t *testing.T) {
	page := "<html><title>T</title>plain text, ünïcode</html>"
	headers := map[string]string{"content-type": "text/html; charset=utf-8", "content-length": "47", "server": "x\x1by"}
	tests := []struct {
		name   string
		room   int
		edit   func(o *Output, body string)
		inRoom bool // the text shares the body's buffer
	}{
		{"whole body, no tail", headRoom, nil, true},
		{"a window from the start, no tail", headRoom, func(o *Output, body string) { o.Content = body[:10] }, true},
		{"a window later in the body", headRoom, func(o *Output, body string) { o.Content = body[3:] }, false},
		{"content not in the body", headRoom, func(o *Output, body string) { o.Content = strings.Clone(body) }, false},
		{"a note follows", headRoom, func(o *Output, _ string) { o.Notes = []string{"a note"} }, false},
		{"truncated", headRoom, func(o *Output, body string) {
			o.Content, o.Truncated, o.Remaining, o.NextStartIndex = body[:5], true, 3, 5
		}, false},
		{"cached", headRoom, func(o *Output, _ string) { o.Cached, o.FetchedAt = true, "2026-01-01T00:00:00Z" }, false},
		{"empty content", headRoom, func(o *Output, _ string) { o.Content = "" }, false},
		{"the head does not fit", 16, nil, false},
		{"no room", 0, nil, false},
		{"a long URL does not fit", headRoom, func(o *Output, _ string) { o.URL = "https://example.com/" + strings.Repeat("a", headRoom) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, tc.room, tc.room+len(page)+1)
			buf = append(buf, page...)
			body := unsafe.String(&buf[tc.room], len(page))
			out := Output{Status: 200, URL: "http://127.0.0.1:8080/p\x1b", Title: "T", Headers: headers, Content: body, Format: "raw", Bytes: int64(len(page))}
			if tc.edit != nil {
				tc.edit(&out, body)
			}
			want := Render(out)
			got := renderOver(out, buf, tc.room)
			if got != want {
				t.Fatalf("renderOver = %q; want Render's %q", got, want)
			}
			p := uintptr(unsafe.Pointer(unsafe.StringData(got)))
			start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
			if in := p >= start && p < start+uintptr(cap(buf)); in != tc.inRoom {
				t.Errorf("text in the body's buffer = %v; want %v", in, tc.inRoom)
			}
			if unsafe.String(&buf[tc.room], len(page)) != page {
				t.Errorf("the body was changed: %q", buf[tc.room:])
			}
		})
	}
}
