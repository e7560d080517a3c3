package strictjson

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/ocfetch/ocfetch/safetext"
)

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota + 1
	Bool
	Number
	String
	Array
	Object
)

// String names the kind for a message: "null", "a boolean", "a number",
// "a string", "a list" or "an object".
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "a list"
	case Object:
		return "an object"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value as [Walker.Walk] meets it, before it is entered.
type Value struct {
	Kind Kind
	// Raw is the literal of a scalar exactly as written: a number's digits,
	// a string with its quotes and escapes, true, false or null. It is nil
	// for an object or array, whose contents the walk has not read yet.
	// It aliases the document.
	Raw []byte
	// Offset is the byte offset of the value's first byte.
	Offset int

	escaped bool   // a String with a backslash in it
	text    string // an unescaped String's text, with Walker.Substrings
}

// Text returns a String value's decoded text and "" for any other kind.
func (v Value) Text() string {
	if v.Kind != String {
		return ""
	}
	if !v.escaped {
		if v.text != "" {
			return v.text
		}
		return string(v.Raw[1 : len(v.Raw)-1])
	}
	s := v.Raw[1 : len(v.Raw)-1]
	b := appendUnquoted(make([]byte, 0, len(s)), s)
	// b is this call's own and nothing writes it again: the string is
	// its one allocation.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendText appends a String value's decoded text (Text's) to dst and
// returns the extended slice; any other kind appends nothing. It lets a
// reader gather the few texts it keeps into one buffer of its own
// without a string per text.
func (v Value) AppendText(dst []byte) []byte {
	if v.Kind != String {
		return dst
	}
	s := v.Raw[1 : len(v.Raw)-1]
	if !v.escaped {
		return append(dst, s...)
	}
	return appendUnquoted(dst, s)
}

// appendUnquoted appends the decoded escapes of a string literal's
// contents, which the scanner validated, to b, as encoding/json decodes
// them: a \u escape of a surrogate that does not pair with the next escape
// is U+FFFD.
func appendUnquoted(b, s []byte) []byte {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		c := s[i+1]
		s = s[i+2:]
		switch c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s)
			s = s[4:]
			if utf16.IsSurrogate(r) {
				next := rune(-1)
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					next = hex4(s[2:])
				}
				if pair := utf16.DecodeRune(r, next); pair != utf8.RuneError {
					r, s = pair, s[6:]
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, c)
		}
	}
	return b
}

// hex4 is the value of the four hex digits s starts with.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Step is one step of a [Path]: an object member's key, or an array index.
type Step struct {
	Key   string // the decoded key of an object member
	Index int    // the index in an array, or -1 for an object member
}

// IsKey reports whether the step is an object member.
func (s Step) IsKey() bool { return s.Index < 0 }

// Path locates a value: one step per enclosing object or array, outermost
// first. The top-level value has an empty path.
type Path []Step

// String renders the path as `ports[2]` or `rules[0].target.host`; the
// top level is "".
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsKey() {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// IsInt reports whether raw is a plain JSON integer literal: an optional
// minus sign and decimal digits, without leading zeros, fraction or
// exponent. 1.0, 1e0, "1", true and null are not integers.
func IsInt(raw []byte) bool {
	i := 0
	if len(raw) > 0 && raw[0] == '-' {
		i = 1
	}
	if i == len(raw) || (raw[i] == '0' && len(raw) > i+1) {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// Int returns the value of raw if raw is a plain JSON integer literal
// ([IsInt]) in [min, max]; ok is false otherwise, including when the
// literal does not fit in an int64.
func Int(raw []byte, min, max int64) (n int64, ok bool) {
	if !IsInt(raw) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < min || n > max {
		return 0, false
	}
	return n, true
}

// Describe names v for a message, telling apart what [Kind.String] lumps
// together: "an object", "a list", `the string "3000"`, and scalars by
// their literal (3000, 3000.0, 1e3, true, null). Strings and literals are
// cut to 64 printable ASCII bytes ([safetext.Short]).
func Describe(v Value) string {
	switch v.Kind {
	case Object, Array:
		return v.Kind.String()
	case String:
		return fmt.Sprintf("the string %q", safetext.Short(v.Text()))
	}
	return safetext.Short(string(v.Raw))
}
