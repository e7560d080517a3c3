package fetchargs

import "encoding/json"

// Document is the arguments document of the fetch tool, for a caller that
// builds one (the CLI's get from its flags, the demo): marshal it with
// [Document.JSON] rather than assembling JSON by hand, so that no value
// can inject a field. An empty string or a nil pointer omits its field,
// and the tool's default applies. Its keys are those [Decode] reads
// (tested); what is accepted is decided by the tool when it prepares the
// call, never here.
type Document struct {
	URL        string            `json:"url"`
	Method     string            `json:"method,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       *string           `json:"body,omitempty"`
	Format     string            `json:"format,omitempty"`
	MaxLength  *int              `json:"max_length,omitempty"`
	StartIndex *int              `json:"start_index,omitempty"`
	// Timeout is in seconds; it and MaxBytes may only lower the Fetch's
	// caps.
	Timeout  *int   `json:"timeout,omitempty"`
	MaxBytes *int64 `json:"max_bytes,omitempty"`
}

// JSON returns the arguments document: d's fields as one JSON object.
func (d Document) JSON() (string, error) {
	b, err := json.Marshal(d)
	return string(b), err
}
