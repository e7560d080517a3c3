package mcpserver

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/fetch"
)

// Output is the structured content of a delivered fetch result, as DESIGN.md's
// MCP contract states it. The page content itself is in the text content
// only (fetch.Render), so it is not sent twice.
type Output struct {
	// Status is the HTTP status of the final response (any status is a
	// delivered result, as with curl).
	Status int `json:"status"`
	// URL is the final URL, after redirects on the approved target.
	URL string `json:"url"`
	// Headers is the bounded header summary, names lowercased.
	Headers map[string]string `json:"headers"`
	// Format is the format of the content: markdown, text or raw.
	Format string `json:"format"`
	// Truncated reports that more content follows; call again with
	// start_index = NextStartIndex to read on.
	Truncated bool `json:"truncated"`
	// NextStartIndex is the start_index of the next window; 0 when nothing
	// remains.
	NextStartIndex int `json:"next_start_index"`
	// Bytes is the number of response body bytes read, after decompression.
	Bytes int64 `json:"bytes"`
	// BodyTruncated reports that the byte cap (max_bytes) cut the body:
	// the content is of the first Bytes bytes only. It is distinct from
	// Truncated, which is about the window of content returned.
	BodyTruncated bool `json:"body_truncated"`
	// Cached reports that the response came from the server's response
	// cache; FetchedAt (RFC 3339, UTC) is when it was fetched. Omitted for
	// a response fetched by this call.
	Cached    bool   `json:"cached,omitempty"`
	FetchedAt string `json:"fetched_at,omitempty"`
	// RedirectTo is set on the error result of a refused off-target
	// redirect only (isError, redirect_off_target): the full Location,
	// resolved against the request URL, to fetch in a new call that is
	// decided on its own. Status, URL and Headers then describe the
	// redirect response.
	RedirectTo string `json:"redirect_to,omitempty"`
}

// outputFrom projects the tool's structured result onto [Output]. ok is
// false for a result that carries no fetch.Output.
func outputFrom(v any) (Output, bool) {
	var fo fetch.Output
	switch o := v.(type) {
	case fetch.Output:
		fo = o
	case *fetch.Output:
		if o == nil {
			return Output{}, false
		}
		fo = *o
	default:
		return Output{}, false
	}
	h := fo.Headers
	if h == nil {
		h = map[string]string{}
	}
	return Output{
		Status:         fo.Status,
		URL:            fo.URL,
		Headers:        h,
		Format:         string(fo.Format),
		Truncated:      fo.Truncated,
		NextStartIndex: fo.NextStartIndex,
		Bytes:          fo.Bytes,
		BodyTruncated:  fo.BodyTruncated,
		RedirectTo:     fo.RedirectTo,
	}, true
}

// outputSchema is the tool's declared output schema: the JSON Schema of
// [Output]. A test checks real results against it.
var outputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "status": {"type": "integer", "minimum": 100, "maximum": 999, "description": "HTTP status code of the final response. A 4xx or 5xx status is a delivered result, not an error."},
    "url": {"type": "string", "description": "Final URL of the response, after redirects on the approved host and port."},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Bounded response header summary (content-type, content-length, location, last-modified, etag, server), names lowercased; absent headers are omitted."},
    "format": {"type": "string", "enum": ["markdown", "text", "raw"], "description": "Format of the returned content."},
    "truncated": {"type": "boolean", "description": "True when more content follows: call again with start_index set to next_start_index."},
    "next_start_index": {"type": "integer", "minimum": 0, "description": "start_index to read on with when truncated; 0 when nothing remains."},
    "bytes": {"type": "integer", "minimum": 0, "description": "Response body bytes read, after decompression."},
    "body_truncated": {"type": "boolean", "description": "True when the byte cap (max_bytes) cut the body, so the content is of its first bytes only; distinct from truncated, which is about the window."},
    "cached": {"type": "boolean", "description": "True when the response came from the server's response cache (GET, up to 15 minutes old by default); absent when fetched by this call."},
    "fetched_at": {"type": "string", "format": "date-time", "description": "When a cached response was fetched (RFC 3339, UTC)."},
    "redirect_to": {"type": "string", "description": "Only on the error result of a refused off-target redirect (redirect_off_target): the full redirect Location, resolved against the request URL. Fetch it in a new call if you want it; that call is decided on its own. status, url and headers then describe the redirect response."}
  },
  "required": ["status", "url", "headers", "format", "truncated", "next_start_index", "bytes"],
  "additionalProperties": false
}`)

// markCached adds to a delivered result that came from the response cache
// the structured fields cached and fetched_at and a last text line saying
// so.
func markCached(res *mcp.CallToolResult, note *cacheNote) *mcp.CallToolResult {
	hit, fetched := note.get()
	if !hit || res.IsError {
		return res
	}
	at := fetched.UTC().Format(time.RFC3339)
	if o, ok := res.StructuredContent.(Output); ok {
		o.Cached, o.FetchedAt = true, at
		res.StructuredContent = o
	}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			tc.Text += "\n\n(from ocfetch's response cache: fetched " + at + ")"
		}
	}
	return res
}
