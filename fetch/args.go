package fetch

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
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

// args is the arguments document as decoded, before validation. Present
// flags distinguish an absent (or null) optional field from its zero value.
type args struct {
	URL        string
	Method     string
	Headers    []header // in document order, names as written
	Body       string
	HasBody    bool
	Format     string
	MaxLength  int64
	HasMaxLen  bool
	StartIndex int64
}

type header struct{ name, value string }

// field bits for the duplicate-key check of the top-level object.
const (
	fURL = 1 << iota
	fMethod
	fHeaders
	fBody
	fFormat
	fMaxLength
	fStartIndex
)

// errArgs is the refusal for any malformed arguments document. Messages
// name a field or a header NAME, never a value: values may be secrets.
func errArgs(msg string) *refusal.Error {
	return refusal.New(refusal.InvalidArguments, msg).
		WithHint(`pass one JSON object: {"url": "https://…", "method": "GET", "headers": {…}, "body": "…", "format": "markdown", "max_length": 20000, "start_index": 0}`)
}

// decodeArgs decodes argsJSON strictly, in one pass over the tokens:
// exactly one JSON object; no unknown field, no duplicate key (at the top
// level or inside headers, where names compare case-insensitively), no
// trailing data; every field of its documented type. A null optional field
// counts as absent; a null url is refused. encoding/json alone would take
// the last of duplicate keys silently, which is why the object is walked
// token by token.
func decodeArgs(argsJSON string) (args, error) {
	var a args
	if len(argsJSON) > MaxArgsBytes {
		return a, errArgs("arguments are larger than 256 KiB")
	}
	dec := json.NewDecoder(strings.NewReader(argsJSON))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return a, syntaxErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return a, errArgs("arguments must be a JSON object")
	}
	var seen int
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return a, syntaxErr(err)
		}
		key, ok := tok.(string)
		if !ok {
			return a, errArgs("arguments are not valid JSON")
		}
		bit := fieldBit(key)
		if bit == 0 {
			return a, errArgs("unknown field " + strconv.Quote(capability.Sanitize(key)) +
				"; the fields are url, method, headers, body, format, max_length, start_index")
		}
		if seen&bit != 0 {
			return a, errArgs("field " + key + " appears more than once")
		}
		seen |= bit
		switch bit {
		case fURL:
			var null bool
			a.URL, null, err = stringValue(dec, key)
			if err == nil && null {
				err = errArgs("field url must be a string, not null")
			}
		case fMethod:
			a.Method, _, err = stringValue(dec, key)
		case fBody:
			var null bool
			a.Body, null, err = stringValue(dec, key)
			a.HasBody = !null
		case fFormat:
			a.Format, _, err = stringValue(dec, key)
		case fMaxLength:
			var null bool
			a.MaxLength, null, err = intValue(dec, key)
			a.HasMaxLen = !null
		case fStartIndex:
			a.StartIndex, _, err = intValue(dec, key)
		case fHeaders:
			a.Headers, err = headersValue(dec)
		}
		if err != nil {
			return a, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return a, syntaxErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return a, errArgs("arguments have data after the JSON object")
	}
	if seen&fURL == 0 {
		return a, errArgs("field url is required")
	}
	return a, nil
}

func fieldBit(key string) int {
	switch key {
	case "url":
		return fURL
	case "method":
		return fMethod
	case "headers":
		return fHeaders
	case "body":
		return fBody
	case "format":
		return fFormat
	case "max_length":
		return fMaxLength
	case "start_index":
		return fStartIndex
	}
	return 0
}

// syntaxErr reports a JSON syntax error by byte offset only: the error text
// of encoding/json may quote a character of the document.
func syntaxErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errArgs("arguments are not valid JSON (at byte " + strconv.FormatInt(se.Offset, 10) + ")")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errArgs("arguments are not valid JSON (unexpected end)")
	}
	return errArgs("arguments are not valid JSON")
}

// stringValue reads a string or null. Any other value is refused; the
// decoding stops there, so a nested value need not be skipped.
func stringValue(dec *json.Decoder, key string) (s string, null bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return "", false, syntaxErr(err)
	}
	switch v := tok.(type) {
	case string:
		return v, false, nil
	case nil:
		return "", true, nil
	}
	return "", false, errArgs("field " + key + " must be a string")
}

// intValue reads an integer or null. A number with a fraction or exponent
// is accepted only when its value is integral ("20000.0", "2e4").
func intValue(dec *json.Decoder, key string) (n int64, null bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, false, syntaxErr(err)
	}
	switch v := tok.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n, false, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), false, nil
		}
		return 0, false, errArgs("field " + key + " must be an integer")
	case nil:
		return 0, true, nil
	}
	return 0, false, errArgs("field " + key + " must be an integer")
}

// headersValue reads an object of string to string (or null). A name given
// twice, in any letter case, is refused: which value would win is exactly
// the kind of ambiguity strict decoding exists to remove.
func headersValue(dec *json.Decoder) ([]header, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(err)
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errArgs("field headers must be an object of header name to string value")
	}
	var hs []header
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxErr(err)
		}
		name, _ := tok.(string)
		if len(hs) >= MaxHeaders {
			return nil, errArgs("more than " + strconv.Itoa(MaxHeaders) + " headers")
		}
		canon := http.CanonicalHeaderKey(name)
		for _, h := range hs {
			if http.CanonicalHeaderKey(h.name) == canon {
				return nil, errArgs("header " + strconv.Quote(capability.Sanitize(name)) + " appears more than once")
			}
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, syntaxErr(err)
		}
		value, ok := tok.(string)
		if !ok {
			return nil, errArgs("header " + strconv.Quote(capability.Sanitize(name)) + " must have a string value")
		}
		hs = append(hs, header{name: name, value: value})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, syntaxErr(err)
	}
	return hs, nil
}
