package mcpserver

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/respcache"
)

// Output is the structured content of a delivered fetch result, as
// DESIGN.md's MCP contract states it: the one output shape, fetch.Output,
// sent as [structuredOutput] (without its content).
type Output = fetch.Output

// structuredOutput is how an Output is sent as structured content: every field
// but the page content, which is the text content only (fetch.Render), so
// it is not sent twice. The outer Content hides the embedded one from
// encoding/json (the shallower field wins) and, being always zero, is
// omitted itself.
type structuredOutput struct {
	fetch.Output
	Content struct{} `json:"content,omitzero"`
}

// outputFrom is the structured content of the tool's structured result.
// ok is false for a result that carries no fetch.Output.
func outputFrom(v any) (structuredOutput, bool) {
	o, ok := fetch.OutputOf(v)
	return structuredOutput{Output: o}, ok
}

// outputSchema is the tool's declared output schema of a server with the
// default cache TTL: the JSON Schema of [Output]. A test checks real
// results against it.
var outputSchema = outputSchemaFor(0)

// outputSchemaFor is the output schema of a server whose response cache
// keeps a response for ttl (Options.CacheTTL: 0 the default, negative
// off), which the description of cached says.
func outputSchemaFor(ttl time.Duration) json.RawMessage {
	age := "the cache is off: never set"
	if ttl >= 0 {
		age = "GET, up to " + durationWords(cmp.Or(ttl, respcache.DefaultTTL)) + " old"
	}
	return json.RawMessage(strings.Replace(outputSchemaText, "{{cache}}", age, 1))
}

// durationWords says d in words, "15 minutes", "90 seconds", "1 hour", in
// the largest whole unit (else as time.Duration prints it).
func durationWords(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}} {
		if d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatInt(n, 10) + " " + u.name + "s"
		}
	}
	return d.String()
}

const outputSchemaText = `{
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
    "title": {"type": "string", "description": "The document's title, when it has one."},
    "cached": {"type": "boolean", "description": "True when the response came from the server's response cache ({{cache}}); absent when fetched by this call."},
    "fetched_at": {"type": "string", "format": "date-time", "description": "When a cached response was fetched (RFC 3339, UTC)."},
    "redirect_to": {"type": "string", "description": "Only on the error result of a refused off-target redirect (redirect_off_target): the full redirect Location, resolved against the request URL. Fetch it in a new call if you want it; that call is decided on its own. status, url and headers then describe the redirect response."},
    "media_type": {"type": "string", "description": "The response's media type as the converter read it."},
    "start_index": {"type": "integer", "minimum": 0, "description": "The character index the content starts at (absent for 0)."},
    "remaining": {"type": "integer", "minimum": 0, "description": "Characters of content after this window (absent for 0)."},
    "notes": {"type": "array", "items": {"type": "string"}, "description": "Remarks for the reader (a cut body, content that could not be converted, a start_index past the end); also in the text content."}
  },
  "required": ["status", "url", "headers", "format", "truncated", "next_start_index", "bytes"],
  "additionalProperties": false
}`
