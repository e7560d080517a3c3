package fetch

import (
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
	// RedirectTo is set on the error result of a refused off-target
	// redirect only: the full Location, resolved against the request URL,
	// for the caller to fetch in a new call (decided on its own). Status,
	// URL and Headers then describe the redirect response. Like URL, it is
	// for the caller only: never log it.
	RedirectTo string `json:"redirect_to,omitempty"`
}
