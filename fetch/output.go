package fetch

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/content"
)

// Output is the structured result of a delivered response (any HTTP status:
// a 404 is a delivered response, as curl has it). Its JSON fields are those
// of DESIGN.md's `ocfetch get --json` object. URL and Content are for the
// model and the user only: never log them.
type Output struct {
	// Status is the HTTP status code of the final response.
	Status int `json:"status"`
	// URL is the final URL, after same-target redirects.
	URL string `json:"url"`
	// Headers is the bounded header summary (seed 000): content-type,
	// content-length, location, last-modified, etag, server, lowercased;
	// absent headers omitted.
	Headers map[string]string `json:"headers"`
	// Content is the window of converted content this call returns.
	Content string `json:"content"`
	// Format is the format Content is in.
	Format content.Format `json:"format"`
	// MediaType is the response's media type as the converter read it.
	MediaType string `json:"media_type,omitempty"`
	// Title is the document's title, when it has one.
	Title string `json:"title,omitempty"`
	// StartIndex is the rune index Content starts at.
	StartIndex int `json:"start_index,omitempty"`
	// Truncated reports that converted content remains after Content.
	Truncated bool `json:"truncated"`
	// NextStartIndex is the start_index to read on with; 0 when nothing
	// remains.
	NextStartIndex int `json:"next_start_index,omitempty"`
	// Remaining is the number of runes after Content.
	Remaining int `json:"remaining,omitempty"`
	// Bytes is the number of body bytes read (after decompression).
	Bytes int64 `json:"bytes"`
	// BodyTruncated reports that the body was cut at the byte cap: the
	// content is that of the first Bytes bytes only.
	BodyTruncated bool `json:"body_truncated,omitempty"`
	// Notes are secret-free remarks for the reader (a cut body, content
	// that could not be converted, a start_index past the end, …).
	Notes []string `json:"notes,omitempty"`
}

// summaryHeaders is the order Render shows the header summary in (seed 000's
// LOCAL_RESPONSE_HEADERS).
var summaryHeaders = []string{"content-type", "content-length", "location", "last-modified", "etag", "server"}

// Render returns the text a model or a terminal reads: a status line, the
// final URL, the header summary one "name: value" a line, a blank line, the
// content, and then any notes and the pagination hint, each on its own
// line in brackets. tool.Result.Content is Render of the Output; a front end
// that shows the parts separately (ocfetch get --json, MCP structured
// content) uses the Output fields instead.
func Render(out Output) string {
	var b strings.Builder
	b.Grow(len(out.Content) + 256)
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(out.Status))
	if t := http.StatusText(out.Status); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	b.WriteString("\nurl: ")
	b.WriteString(out.URL)
	b.WriteByte('\n')
	if out.Title != "" { // as ocfetch get prints it
		b.WriteString("title: ")
		b.WriteString(out.Title)
		b.WriteByte('\n')
	}
	for _, name := range summaryHeaders {
		if v, ok := out.Headers[name]; ok {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	b.WriteString(out.Content)
	for _, n := range out.Notes {
		b.WriteString("\n\n[")
		b.WriteString(n)
		b.WriteByte(']')
	}
	if out.Truncated {
		b.WriteString("\n\n[content truncated: ")
		b.WriteString(strconv.Itoa(out.Remaining))
		b.WriteString(" more characters; call again with start_index=")
		b.WriteString(strconv.Itoa(out.NextStartIndex))
		b.WriteString(" to read on]")
	}
	return b.String()
}
