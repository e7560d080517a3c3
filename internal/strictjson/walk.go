package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/capability"
)

// DefaultMaxDepth is the nesting bound of a [Walker] whose MaxDepth is 0.
const DefaultMaxDepth = 32

// Sentinel errors. Structural problems are returned as an *[Error] that
// wraps one of them, so callers branch with errors.Is and read the offset
// and key with errors.As.
var (
	// ErrInvalidUTF8: the document is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
	// ErrEmpty: the document holds nothing but whitespace. It is returned
	// as is, not wrapped in an *Error.
	ErrEmpty = errors.New("the document is empty")
	// ErrSyntax: the document is not JSON. A document cut off inside a
	// value also matches io.ErrUnexpectedEOF.
	ErrSyntax = errors.New("invalid JSON")
	// ErrTrailingData: something other than whitespace follows the value.
	ErrTrailingData = errors.New("trailing data after the JSON value")
	// ErrTooDeep: objects and arrays nest deeper than the Walker allows.
	ErrTooDeep = errors.New("nested too deeply")
	// ErrDuplicateKey: an object has the same key twice, after escapes
	// are decoded ("port" and "p\u006frt" are the same key).
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrUnknownKey: a key is not byte-exactly one of [Walker.Keys].
	ErrUnknownKey = errors.New("unknown key")
)

// Error is a structural problem found by [Walker.Walk]. Its message holds
// the byte offset and, for key errors, the key cut to 64 printable ASCII
// bytes; never any other part of the document.
type Error struct {
	Err    error  // one of the sentinels above
	Offset int    // byte offset of the problem in the document
	Key    string // the decoded key, for ErrDuplicateKey and ErrUnknownKey
	detail string // what the scanner saw, for ErrSyntax
	eof    bool   // the document ended inside a value
	known  []string
}

func (e *Error) Error() string {
	switch e.Err {
	case ErrSyntax:
		return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.detail)
	case ErrTooDeep:
		return fmt.Sprintf("nested deeper than %s levels at byte %d", e.detail, e.Offset)
	case ErrDuplicateKey:
		return fmt.Sprintf("duplicate key %q at byte %d", capability.Sanitize(e.Key), e.Offset)
	case ErrUnknownKey:
		return fmt.Sprintf("unknown key %q at byte %d (known: %s)", capability.Sanitize(e.Key), e.Offset, strings.Join(e.known, ", "))
	}
	return fmt.Sprintf("%v at byte %d", e.Err, e.Offset)
}

// Unwrap returns the sentinel, and io.ErrUnexpectedEOF as well when the
// document ends inside a value.
func (e *Error) Unwrap() []error {
	if e.eof {
		return []error{ErrSyntax, io.ErrUnexpectedEOF}
	}
	return []error{e.Err}
}

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

	escaped bool // a String with a backslash in it
}

// Text returns a String value's decoded text and "" for any other kind.
func (v Value) Text() string {
	if v.Kind != String {
		return ""
	}
	if !v.escaped {
		return string(v.Raw[1 : len(v.Raw)-1])
	}
	var s string
	_ = json.Unmarshal(v.Raw, &s) // the scanner validated the escapes
	return s
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

// Walker checks JSON documents against a fixed structure. The zero value
// allows any key and nesting up to [DefaultMaxDepth]. A Walker is not
// changed by Walk and may be shared.
type Walker struct {
	// MaxDepth bounds how many objects and arrays may be open at once
	// (the top-level object counts as one). 0 means DefaultMaxDepth.
	MaxDepth int
	// Keys, if not nil, are the only object keys allowed anywhere in the
	// document, compared byte-exactly after escapes are decoded: "Ports"
	// and "ſchema" are not "ports" and "schema". Which key belongs at
	// which level is the visitor's (or a struct decoder's) to check. A
	// key equal to one of Keys is passed in the Path as that very string,
	// so known keys cost no allocation.
	Keys []string
}

// Walk checks in one pass that data is valid UTF-8 holding exactly one
// JSON value and nothing but whitespace after it, that no object has a
// duplicate key or, when w.Keys is set, a key outside it, and that nesting
// stays within w.MaxDepth. It uses no recursion, so hostile nesting cannot
// exhaust the stack.
//
// Before entering each value (every member and element, and the top level)
// Walk calls visit, if not nil, with the value's path and the value. The
// path is only valid during the call. A non-nil error from visit stops the
// walk and is returned as is, so problems are reported in document order:
// a visitor that refuses a list where a number belongs is never overtaken
// by an error further on. A duplicate or unknown key is reported before its
// value is visited.
//
// Walk's own errors are [ErrEmpty] or an *[Error] wrapping one of the
// other sentinels.
// Once Walk has returned nil, encoding/json decodes data without surprises:
// no duplicate key can override an earlier one, and with Keys set no key
// can reach a struct field through case-insensitive matching.
func (w *Walker) Walk(data []byte, visit func(Path, Value) error) error {
	if !utf8.Valid(data) {
		return &Error{Err: ErrInvalidUTF8, Offset: firstInvalidUTF8(data)}
	}
	maxDepth := w.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	s := scanner{data: data, w: w}
	s.stack = s.stackBuf[:0]
	s.path = s.pathBuf[:0]
	s.keys = s.keysBuf[:0]

	pos := s.skipSpace(0)
	if pos == len(data) {
		return ErrEmpty
	}
	for {
		// A value starts at pos.
		v, end, err := s.value(pos)
		if err != nil {
			return err
		}
		if visit != nil {
			if err := visit(s.path, v); err != nil {
				return err
			}
		}
		pos = end
		if v.Kind == Object || v.Kind == Array {
			if len(s.stack) >= maxDepth {
				return &Error{Err: ErrTooDeep, Offset: v.Offset, detail: strconv.Itoa(maxDepth)}
			}
			s.stack = append(s.stack, frame{object: v.Kind == Object, keyStart: len(s.keys)})
			pos = s.skipSpace(pos)
			if pos < len(data) && data[pos] == closer(v.Kind == Object) {
				s.pop()
				pos++
			} else {
				if pos, err = s.child(pos, true); err != nil {
					return err
				}
				continue
			}
		}
		// A value has ended at pos: find the next one, or the end.
		for {
			if len(s.stack) == 0 {
				if pos = s.skipSpace(pos); pos < len(data) {
					return &Error{Err: ErrTrailingData, Offset: pos}
				}
				return nil
			}
			top := &s.stack[len(s.stack)-1]
			pos = s.skipSpace(pos)
			if pos == len(data) {
				return s.syntax(-1, "")
			}
			c := data[pos]
			if c == ',' {
				if pos, err = s.child(s.skipSpace(pos+1), false); err != nil {
					return err
				}
				break
			}
			if c != closer(top.object) {
				if top.object {
					return s.syntax(pos, "want ',' or '}'")
				}
				return s.syntax(pos, "want ',' or ']'")
			}
			s.path = s.path[:len(s.path)-1]
			s.pop()
			pos++
		}
	}
}

// frame is one open object or array.
type frame struct {
	object   bool
	keyStart int                 // this object's keys are keys[keyStart:]
	set      map[string]struct{} // all of them, once there are many
}

// manyKeys is the key count from which an object's duplicate check uses
// a map rather than a scan.
const manyKeys = 16

type scanner struct {
	data  []byte
	w     *Walker
	stack []frame
	path  Path
	keys  []string

	stackBuf [4]frame
	pathBuf  [4]Step
	keysBuf  [8]string
}

func closer(object bool) byte {
	if object {
		return '}'
	}
	return ']'
}

func (s *scanner) pop() {
	top := s.stack[len(s.stack)-1]
	clear(s.keys[top.keyStart:])
	s.keys = s.keys[:top.keyStart]
	s.stack = s.stack[:len(s.stack)-1]
}

// child positions the walk on the next member or element of the innermost
// container (its first if first) and updates the path. pos is at the
// member's key or the element's value; the result is at the value.
func (s *scanner) child(pos int, first bool) (int, error) {
	top := &s.stack[len(s.stack)-1]
	if !top.object {
		if first {
			s.path = append(s.path, Step{Index: 0})
		} else {
			s.path[len(s.path)-1].Index++
		}
		return pos, nil
	}
	key, end, err := s.key(pos, top)
	if err != nil {
		return 0, err
	}
	if first {
		s.path = append(s.path, Step{Key: key, Index: -1})
	} else {
		s.path[len(s.path)-1] = Step{Key: key, Index: -1}
	}
	end = s.skipSpace(end)
	if end == len(s.data) {
		return 0, s.syntax(-1, "")
	}
	if s.data[end] != ':' {
		return 0, s.syntax(end, "want ':' after an object key")
	}
	return s.skipSpace(end + 1), nil
}

// key reads an object key at pos, checks it against the Walker's keys and
// the object's earlier keys, and records it.
func (s *scanner) key(pos int, top *frame) (string, int, error) {
	if pos == len(s.data) {
		return "", 0, s.syntax(-1, "")
	}
	if s.data[pos] != '"' {
		return "", 0, s.syntax(pos, "want a string key")
	}
	end, escaped, err := s.str(pos)
	if err != nil {
		return "", 0, err
	}
	raw := s.data[pos+1 : end-1]
	var key string
	found := false
	if !escaped {
		for _, k := range s.w.Keys {
			if string(raw) == k {
				key, found = k, true
				break
			}
		}
		if !found {
			key = string(raw)
		}
	} else {
		key = Value{Kind: String, Raw: s.data[pos:end], escaped: true}.Text()
		for _, k := range s.w.Keys {
			if key == k {
				key, found = k, true
				break
			}
		}
	}
	if s.w.Keys != nil && !found {
		return "", 0, &Error{Err: ErrUnknownKey, Offset: pos, Key: key, known: s.w.Keys}
	}
	mine := s.keys[top.keyStart:]
	if top.set != nil {
		if _, dup := top.set[key]; dup {
			return "", 0, &Error{Err: ErrDuplicateKey, Offset: pos, Key: key}
		}
		top.set[key] = struct{}{}
	} else {
		for _, k := range mine {
			if k == key {
				return "", 0, &Error{Err: ErrDuplicateKey, Offset: pos, Key: key}
			}
		}
		if len(mine)+1 >= manyKeys {
			top.set = make(map[string]struct{}, 2*manyKeys)
			for _, k := range mine {
				top.set[k] = struct{}{}
			}
			top.set[key] = struct{}{}
		}
	}
	if top.set == nil {
		s.keys = append(s.keys, key)
	}
	return key, end, nil
}

// value reads the value at pos: a scalar entirely, an object or array only
// its opening byte. end is just past what was read.
func (s *scanner) value(pos int) (v Value, end int, err error) {
	data := s.data
	if pos == len(data) {
		return Value{}, 0, s.syntax(-1, "")
	}
	v.Offset = pos
	switch c := data[pos]; c {
	case '{':
		v.Kind = Object
		return v, pos + 1, nil
	case '[':
		v.Kind = Array
		return v, pos + 1, nil
	case '"':
		v.Kind = String
		end, v.escaped, err = s.str(pos)
	case 't':
		v.Kind, end, err = Bool, pos+4, s.literal(pos, "true")
	case 'f':
		v.Kind, end, err = Bool, pos+5, s.literal(pos, "false")
	case 'n':
		v.Kind, end, err = Null, pos+4, s.literal(pos, "null")
	default:
		if c != '-' && (c < '0' || c > '9') {
			return Value{}, 0, s.syntax(pos, "want a value")
		}
		v.Kind = Number
		end, err = s.number(pos)
	}
	if err != nil {
		return Value{}, 0, err
	}
	v.Raw = data[pos:end:end]
	return v, end, nil
}

func (s *scanner) literal(pos int, lit string) error {
	for i := 0; i < len(lit); i++ {
		if pos+i == len(s.data) {
			return s.syntax(-1, "")
		}
		if s.data[pos+i] != lit[i] {
			return s.syntax(pos+i, "want "+lit)
		}
	}
	return nil
}

// number scans a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number(pos int) (int, error) {
	data := s.data
	i := pos
	if data[i] == '-' {
		i++
	}
	digits := func(i int) (int, error) {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			if i == len(data) {
				return 0, s.syntax(-1, "")
			}
			return 0, s.syntax(i, "want a digit in a number")
		}
		return i, nil
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else {
		var err error
		if i, err = digits(i); err != nil {
			return 0, err
		}
	}
	var err error
	if i < len(data) && data[i] == '.' {
		if i, err = digits(i + 1); err != nil {
			return 0, err
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i, err = digits(i); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// str scans the string whose opening quote is at pos and returns the
// offset just past its closing quote. It refuses raw control characters
// and invalid escapes; the document is already known to be UTF-8.
func (s *scanner) str(pos int) (end int, escaped bool, err error) {
	data := s.data
	for i := pos + 1; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c < 0x20:
			return 0, false, s.syntax(i, "control character in a string")
		case c == '\\':
			escaped = true
			i++
			if i == len(data) {
				return 0, false, s.syntax(-1, "")
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for j := 1; j <= 4; j++ {
					if i+j == len(data) {
						return 0, false, s.syntax(-1, "")
					}
					if !isHex(data[i+j]) {
						return 0, false, s.syntax(i+j, `want four hex digits after \u`)
					}
				}
				i += 4
			default:
				return 0, false, s.syntax(i, "invalid escape in a string")
			}
		}
	}
	return 0, false, s.syntax(-1, "")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) skipSpace(pos int) int {
	for pos < len(s.data) {
		switch s.data[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

// syntax returns an ErrSyntax *Error. pos -1 means the document ended
// inside a value; want says what was expected at pos.
func (s *scanner) syntax(pos int, want string) error {
	if pos < 0 {
		return &Error{Err: ErrSyntax, Offset: len(s.data), detail: "unexpected end of input", eof: true}
	}
	r, _ := utf8.DecodeRune(s.data[pos:])
	return &Error{Err: ErrSyntax, Offset: pos, detail: fmt.Sprintf("unexpected %s; %s", strconv.QuoteRuneToASCII(r), want)}
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}
