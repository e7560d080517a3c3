package fetchargs

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Bounds on the arguments document, checked before and while decoding.
const (
	// MaxArgsBytes bounds the raw arguments document; a larger one is
	// refused before it is parsed.
	MaxArgsBytes = 256 << 10
	// MaxURLBytes bounds the url argument.
	MaxURLBytes = 16 << 10
	// MaxRequestBodyBytes bounds the body argument (POST only).
	MaxRequestBodyBytes = 64 << 10
	// DefaultMaxLength is the number of runes of content returned when the
	// call does not say (max_length), as the MCP reference fetch server does.
	DefaultMaxLength = 20000
	// MaxMaxLength is the largest max_length accepted.
	MaxMaxLength = 1_000_000
	// MaxStartIndex is the largest start_index accepted.
	MaxStartIndex = math.MaxInt32
)

// Args is the arguments document as decoded, before validation (the
// Fetch's PrepareCall checks each field against its bounds and caps).
// Present flags distinguish an absent (or null) optional field from its
// zero value.
type Args struct {
	URL        string
	Method     string
	Headers    []Header // in document order, names as written
	Body       string
	HasBody    bool
	Format     string
	MaxLength  int64
	HasMaxLen  bool
	StartIndex int64
	// Timeout is the timeout argument, in seconds; MaxBytes the max_bytes
	// argument. Each bounded by the Fetch's caps in PrepareCall.
	Timeout     int64
	HasTimeout  bool
	MaxBytes    int64
	HasMaxBytes bool
}

// Header is one member of the headers argument, its name as written.
type Header struct{ Name, Value string }

// argsDoc is the shape of the arguments document: one object of the
// fields below, where headers is a map of arbitrary header names. The
// visitor refuses every other object or list before the walk enters it,
// so nothing nests deeper than headers.
var argsDoc = strictjson.Walker{
	MaxDepth:  2,
	Keys:      []string{"url", "method", "headers", "body", "format", "max_length", "start_index", "timeout", "max_bytes"},
	AnyKeysAt: []string{"headers"},
}

// invalidHint shows an object that every server accepts whatever its caps
// (a model may copy it as is: no timeout or max_bytes, which a lower cap
// would refuse, and no body, which GET refuses), then names the other
// fields.
const invalidHint = `pass one JSON object: {"url": "https://…", "format": "markdown", "max_length": 20000, "start_index": 0}; ` +
	`the other fields are method ("GET" or "POST"), headers (an object, name to value), body (POST only), timeout (seconds) and max_bytes, each within the tool's input schema`

// Invalid is the refusal (invalid_arguments) for any malformed arguments
// document, msg saying what is wrong, with the hint that shows the whole
// document. Messages name a field or a header NAME, never a value: values
// may be secrets.
func Invalid(msg string) *refusal.Error {
	return refusal.New(refusal.InvalidArguments, msg).
		WithHint(invalidHint)
}

// Decode decodes argsJSON strictly, in one pass of argsDoc: valid
// UTF-8 holding exactly one JSON object; no unknown field, no duplicate
// key (at the top level or inside headers, where names compare
// case-insensitively), no trailing data; every field of its documented
// type. A null optional field counts as absent; a null url is refused.
// encoding/json alone would keep the last of duplicate keys, match field
// names case-insensitively and replace invalid UTF-8 with U+FFFD.
func Decode(argsJSON string) (Args, error) {
	if len(argsJSON) > MaxArgsBytes {
		return Args{}, Invalid("arguments are larger than 256 KiB")
	}
	d := argsDecoder{doc: argsJSON}
	if err := argsDoc.Walk([]byte(argsJSON), d.visit); err != nil {
		return d.a, walkError(err)
	}
	if !d.hasURL {
		return d.a, Invalid("field url is required")
	}
	return d.a, nil
}

// argsDecoder fills a from the values argsDoc's walk visits.
type argsDecoder struct {
	doc    string // the document, for substrings that need no copy
	a      Args
	hasURL bool
}

func (d *argsDecoder) visit(p strictjson.Path, v strictjson.Value) error {
	switch len(p) {
	case 0:
		if v.Kind != strictjson.Object {
			return Invalid("arguments must be a JSON object")
		}
	case 1:
		return d.field(p[0].Key, v)
	case 2: // a member of headers, the only container field lets the walk enter
		return d.header(p[1].Key, v)
	}
	return nil
}

// field checks and stores one top-level field; argsDoc has already
// checked that key is known and not repeated. Any list or object where a
// scalar belongs is refused here, before the walk reads into it.
func (d *argsDecoder) field(key string, v strictjson.Value) error {
	a := &d.a
	var err error
	switch key {
	case "url":
		if v.Kind == strictjson.Null {
			return Invalid("field url must be a string, not null")
		}
		a.URL, err = d.str(key, v)
		d.hasURL = true
	case "headers":
		if v.Kind != strictjson.Null && v.Kind != strictjson.Object {
			return Invalid("field headers must be an object of header name to string value")
		}
	case "method", "body", "format":
		if v.Kind == strictjson.Null {
			return nil
		}
		var s string
		if s, err = d.str(key, v); err != nil {
			return err
		}
		switch key {
		case "method":
			a.Method = s
		case "body":
			a.Body, a.HasBody = s, true
		default:
			a.Format = s
		}
	case "max_length":
		if v.Kind == strictjson.Null {
			return nil
		}
		a.MaxLength, err = d.int(key, v)
		a.HasMaxLen = true
	case "start_index":
		if v.Kind == strictjson.Null {
			return nil
		}
		a.StartIndex, err = d.int(key, v)
	case "timeout":
		if v.Kind == strictjson.Null {
			return nil
		}
		a.Timeout, err = d.int(key, v)
		a.HasTimeout = true
	case "max_bytes":
		if v.Kind == strictjson.Null {
			return nil
		}
		a.MaxBytes, err = d.int(key, v)
		a.HasMaxBytes = true
	}
	return err
}

// header stores one member of headers. A name given twice, in any letter
// case, is refused: which value would win is exactly the kind of
// ambiguity strict decoding exists to remove. (argsDoc refuses a name
// repeated byte for byte before this is called.)
func (d *argsDecoder) header(name string, v strictjson.Value) error {
	hs := d.a.Headers
	if len(hs) >= MaxHeaders {
		return Invalid("more than " + strconv.Itoa(MaxHeaders) + " headers")
	}
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return Invalid("header " + strconv.Quote(safetext.Short(name)) + " appears more than once")
		}
	}
	if v.Kind != strictjson.String {
		return Invalid("header " + strconv.Quote(safetext.Short(name)) + " must have a string value")
	}
	d.a.Headers = append(hs, Header{Name: name, Value: d.text(v)})
	return nil
}

// literal returns v's literal as a substring of the document (no copy).
func (d *argsDecoder) literal(v strictjson.Value) string {
	return d.doc[v.Offset : v.Offset+len(v.Raw)]
}

// text decodes a String value. Without escapes it is a substring of the
// document; with them it decodes as encoding/json decodes (a lone or
// mismatched UTF-16 surrogate becomes U+FFFD).
func (d *argsDecoder) text(v strictjson.Value) string {
	lit := d.literal(v)
	if strings.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1]
	}
	return v.Text()
}

func (d *argsDecoder) str(key string, v strictjson.Value) (string, error) {
	if v.Kind != strictjson.String {
		return "", Invalid("field " + key + " must be a string")
	}
	return d.text(v), nil
}

// int reads an integer. A number with a fraction or exponent is accepted
// only when its value is integral ("20000.0", "2e4").
func (d *argsDecoder) int(key string, v strictjson.Value) (int64, error) {
	if v.Kind == strictjson.Number {
		lit := d.literal(v)
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
	}
	return 0, Invalid("field " + key + " must be an integer")
}

// walkError turns an error of argsDoc's walk into a refusal naming at most
// a byte offset, a field or a header name: strictjson's own syntax
// messages may quote a character of the document.
func walkError(err error) error {
	if r, ok := refusal.As(err); ok {
		return r // the visitor's
	}
	var e *strictjson.Error
	switch {
	case errors.Is(err, strictjson.ErrEmpty), errors.Is(err, io.ErrUnexpectedEOF):
		return Invalid("arguments are not valid JSON (unexpected end)")
	case !errors.As(err, &e):
		return Invalid("arguments are not valid JSON")
	case errors.Is(err, strictjson.ErrInvalidUTF8):
		return Invalid("arguments are not valid UTF-8 (at byte " + strconv.Itoa(e.Offset) + ")")
	case errors.Is(err, strictjson.ErrTrailingData):
		return Invalid("arguments have data after the JSON object")
	case errors.Is(err, strictjson.ErrUnknownKey):
		return Invalid("unknown field " + strconv.Quote(safetext.Short(e.Key)) +
			"; the fields are url, method, headers, body, format, max_length, start_index, timeout, max_bytes")
	case errors.Is(err, strictjson.ErrDuplicateKey) && len(e.Path) == 0:
		return Invalid("field " + e.Key + " appears more than once")
	case errors.Is(err, strictjson.ErrDuplicateKey):
		return Invalid("header " + strconv.Quote(safetext.Short(e.Key)) + " appears more than once")
	}
	return Invalid("arguments are not valid JSON (at byte " + strconv.Itoa(e.Offset) + ")")
}
