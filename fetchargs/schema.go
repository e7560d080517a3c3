package fetchargs

import (
	"encoding/json"
	"fmt"
)

// inputSchemaFormat is the input schema with the caps (timeout seconds,
// max_bytes), the default max_length and the most of start_index
// ([MaxStartIndex]) to fill in: the Fetch's own ([SchemaFor]).
const inputSchemaFormat = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "Absolute URL to fetch: https://host/path (http:// only for an allowed localhost port)."},
    "method": {"type": "string", "enum": ["GET", "POST"], "default": "GET", "description": "HTTP method."},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 32, "description": "Request headers, name to value. Host, Connection, Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade, Content-Length, Accept-Encoding, Expect and Proxy-* may not be set."},
    "body": {"type": "string", "maxLength": 65536, "description": "Request body, POST only, at most 64 KiB. No Content-Type is sent unless given in headers."},
    "format": {"type": "string", "enum": ["markdown", "text", "raw"], "default": "markdown", "description": "How to return the content."},
    "max_length": {"type": "integer", "minimum": 1, "maximum": 1000000, "default": %[3]d, "description": "Maximum number of characters of content to return."},
    "start_index": {"type": "integer", "minimum": 0, "maximum": %[4]d, "default": 0, "description": "Character index to start the content at, to read on after a truncated result."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": %[1]d, "default": %[1]d, "description": "Seconds the whole call may take, redirects and body included; at most the server's cap (%[1]d)."},
    "max_bytes": {"type": "integer", "minimum": 1, "maximum": %[2]d, "default": %[2]d, "description": "Response body bytes to read at most (after decompression); a longer body is cut and reported; at most the server's cap (%[2]d)."}
  },
  "required": ["url"],
  "additionalProperties": false
}`

// Schema is the JSON Schema of the arguments document a model is shown
// (tool.Info.InputSchema), with the Fetch's caps: timeoutSeconds, the
// most and the default of timeout, and maxBytes, of max_bytes; the
// default of max_length is [DefaultMaxLength].
func Schema(timeoutSeconds, maxBytes int64) json.RawMessage {
	return SchemaFor(timeoutSeconds, maxBytes, DefaultMaxLength)
}

// SchemaFor is [Schema] for a Fetch whose calls get maxLength runes of
// content when they name no max_length: the schema's default is what a
// call then gets.
func SchemaFor(timeoutSeconds, maxBytes int64, maxLength int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(inputSchemaFormat, timeoutSeconds, maxBytes, maxLength, MaxStartIndex))
}
