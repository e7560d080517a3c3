package fetch

import (
	"math"
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

// decodeArgs decodes argsJSON strictly, in one pass (see scanner):
// exactly one JSON object; no unknown field, no duplicate key (at the top
// level or inside headers, where names compare case-insensitively), no
// trailing data; every field of its documented type. A null optional field
// counts as absent; a null url is refused.
func decodeArgs(argsJSON string) (args, error) {
	var a args
	if len(argsJSON) > MaxArgsBytes {
		return a, errArgs("arguments are larger than 256 KiB")
	}
	sc := &scanner{s: argsJSON}
	if k := sc.kind(); k != kindObject {
		if k == kindInvalid {
			return a, sc.syntax()
		}
		return a, errArgs("arguments must be a JSON object")
	}
	sc.i++
	var seen int
	for first := true; ; first = false {
		if sc.peek() == '}' && first {
			sc.i++
			break
		}
		key, err := sc.str()
		if err != nil {
			return a, err
		}
		if err := sc.expect(':'); err != nil {
			return a, err
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
			a.URL, null, err = stringValue(sc, key)
			if err == nil && null {
				err = errArgs("field url must be a string, not null")
			}
		case fMethod:
			a.Method, _, err = stringValue(sc, key)
		case fBody:
			var null bool
			a.Body, null, err = stringValue(sc, key)
			a.HasBody = !null
		case fFormat:
			a.Format, _, err = stringValue(sc, key)
		case fMaxLength:
			var null bool
			a.MaxLength, null, err = intValue(sc, key)
			a.HasMaxLen = !null
		case fStartIndex:
			a.StartIndex, _, err = intValue(sc, key)
		case fHeaders:
			a.Headers, err = headersValue(sc)
		}
		if err != nil {
			return a, err
		}
		if c := sc.peek(); c == ',' {
			sc.i++
			continue
		} else if c == '}' {
			sc.i++
			break
		}
		return a, sc.syntax()
	}
	if sc.peek() != 0 {
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

// stringValue reads a string or null. Any other value is refused; decoding
// stops there, so a nested value need not be skipped.
func stringValue(sc *scanner, key string) (s string, null bool, err error) {
	switch sc.kind() {
	case kindString:
		s, err := sc.str()
		return s, false, err
	case kindNull:
		return "", true, sc.null()
	case kindInvalid:
		return "", false, sc.syntax()
	}
	return "", false, errArgs("field " + key + " must be a string")
}

// intValue reads an integer or null. A number with a fraction or exponent
// is accepted only when its value is integral ("20000.0", "2e4").
func intValue(sc *scanner, key string) (n int64, null bool, err error) {
	switch sc.kind() {
	case kindNumber:
		lit, err := sc.number()
		if err != nil {
			return 0, false, err
		}
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return n, false, nil
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), false, nil
		}
		return 0, false, errArgs("field " + key + " must be an integer")
	case kindNull:
		return 0, true, sc.null()
	case kindInvalid:
		return 0, false, sc.syntax()
	}
	return 0, false, errArgs("field " + key + " must be an integer")
}

// headersValue reads an object of string to string (or null). A name given
// twice, in any letter case, is refused: which value would win is exactly
// the kind of ambiguity strict decoding exists to remove.
func headersValue(sc *scanner) ([]header, error) {
	switch sc.kind() {
	case kindNull:
		return nil, sc.null()
	case kindObject:
	case kindInvalid:
		return nil, sc.syntax()
	default:
		return nil, errArgs("field headers must be an object of header name to string value")
	}
	sc.i++
	var hs []header
	if sc.peek() == '}' {
		sc.i++
		return nil, nil
	}
	for {
		name, err := sc.str()
		if err != nil {
			return nil, err
		}
		if err := sc.expect(':'); err != nil {
			return nil, err
		}
		if len(hs) >= MaxHeaders {
			return nil, errArgs("more than " + strconv.Itoa(MaxHeaders) + " headers")
		}
		for _, h := range hs {
			if strings.EqualFold(h.name, name) {
				return nil, errArgs("header " + strconv.Quote(capability.Sanitize(name)) + " appears more than once")
			}
		}
		switch sc.kind() {
		case kindString:
		case kindInvalid:
			return nil, sc.syntax()
		default:
			return nil, errArgs("header " + strconv.Quote(capability.Sanitize(name)) + " must have a string value")
		}
		value, err := sc.str()
		if err != nil {
			return nil, err
		}
		hs = append(hs, header{name: name, value: value})
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return hs, nil
		default:
			return nil, sc.syntax()
		}
	}
}
