package fetch

import (
	"github.com/ocfetch/ocfetch/content"
)

// Output is the structured result of a delivered response (any HTTP status:
// a 404 is a delivered response, as curl has it), and the one output shape
// of every front end: `ocfetch get --json` is an Output after "ok": true,
// and the MCP server's structured content is an Output without its
// content (which is the text content, [Render], and is not sent twice).
// The fields are in the order those two shapes had before they were one
// (docs/DESIGN.md), with the fields either lacked after them: shapes
// change by added fields only. URL and Content are for the model and the
// user only: never log them.
type Output struct {
	// Status is the HTTP status code of the final response.
	Status int `json:"status"`
	// URL is the final URL, after same-target redirects.
	URL string `json:"url"`
	// Headers is the bounded header summary (seed 000): content-type,
	// content-length, location, last-modified, etag, server, lowercased;
	// absent headers omitted. Never nil (an object in JSON).
	Headers map[string]string `json:"headers"`
	// Content is the window of converted content this call returns.
	Content string `json:"content"`
	// Format is the format Content is in.
	Format content.Format `json:"format"`
	// Truncated reports that converted content remains after Content:
	// call again with start_index = NextStartIndex to read on.
	Truncated bool `json:"truncated"`
	// NextStartIndex is the start_index to read on with; 0 when nothing
	// remains.
	NextStartIndex int `json:"next_start_index"`
	// Bytes is the number of body bytes read (after decompression).
	Bytes int64 `json:"bytes"`
	// BodyTruncated reports that the body was cut at the byte cap
	// (max_bytes): the content is that of the first Bytes bytes only. It
	// is distinct from Truncated, which is about the window of content.
	BodyTruncated bool `json:"body_truncated"`
	// Title is the document's title, when it has one.
	Title string `json:"title,omitempty"`
	// Cached reports that the response came from the response cache
	// ([Options].Cache, a respcache.Cache); FetchedAt (RFC 3339, UTC) is when it was fetched.
	// Omitted for a response fetched by this call.
	Cached    bool   `json:"cached,omitempty"`
	FetchedAt string `json:"fetched_at,omitempty"`
	// RedirectTo is set on the error result of a refused off-target
	// redirect only: the full Location, resolved against the request URL,
	// for the caller to fetch in a new call (decided on its own). Status,
	// URL and Headers then describe the redirect response. Like URL, it is
	// for the caller only: never log it.
	RedirectTo string `json:"redirect_to,omitempty"`
	// MediaType is the response's media type as the converter read it.
	MediaType string `json:"media_type,omitempty"`
	// StartIndex is the rune index Content starts at.
	StartIndex int `json:"start_index,omitempty"`
	// Remaining is the number of runes after Content.
	Remaining int `json:"remaining,omitempty"`
	// Notes are secret-free remarks for the reader (a cut body, content
	// that could not be converted, a start_index past the end, …).
	Notes []string `json:"notes,omitempty"`
}

// OutputOf returns the Output a tool result carries (tool.Result.Structured
// of a Fetch), if it carries one, its Headers never nil.
func OutputOf(v any) (Output, bool) {
	var o Output
	switch v := v.(type) {
	case Output:
		o = v
	case *Output:
		if v == nil {
			return Output{}, false
		}
		o = *v
	default:
		return Output{}, false
	}
	o.Headers = headersOrEmpty(o.Headers)
	return o, true
}

// headersOrEmpty is h, or an empty summary for nil: Output.Headers is
// never nil.
func headersOrEmpty(h map[string]string) map[string]string {
	if h == nil {
		return map[string]string{}
	}
	return h
}
