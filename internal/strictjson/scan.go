package strictjson

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
)

// frame is one open object or array.
type frame struct {
	object   bool
	keyStart int                 // this object's keys are keys[keyStart:]
	anyKeys  bool                // an object listed in Walker.AnyKeysAt
	set      map[string]struct{} // all of them, once there are many
}

// manyKeys is the key count from which an object's duplicate check uses
// a map rather than a scan.
const manyKeys = 16

// scanner is the state of one Walk. Its buffers hold the stack, path and
// keys of a typical policy file without allocating.
type scanner struct {
	data  []byte
	doc   string // a copy of data, with Walker.Substrings
	w     *Walker
	stack []frame
	path  Path
	keys  []string

	stackBuf [8]frame
	pathBuf  [8]Step
	keysBuf  [16]string

	// keyCache holds short keys met in this scanner's earlier walks,
	// each in the slot its bytes choose (cachedKey): without
	// Walker.Substrings, a key outside Walker.Keys met again costs no
	// allocation. It outlives a walk on purpose, and holds keys only.
	keyCache [64]string
}

// maxCachedKey bounds the keys keyCache holds.
const maxCachedKey = 32

// cachedKey returns raw, an unescaped key's bytes, as a string: keyCache's
// when it holds those bytes, else a new one it then holds.
func (s *scanner) cachedKey(raw []byte) string {
	n := len(raw)
	if n == 0 || n > maxCachedKey {
		return string(raw)
	}
	slot := &s.keyCache[(n*31+int(raw[0])*7+int(raw[n-1]))%len(s.keyCache)]
	if *slot != string(raw) {
		*slot = string(raw)
	}
	return *slot
}

// scanners recycles scanner state: a visitor's Path points into it, so it
// would otherwise be allocated on every Walk.
var scanners = sync.Pool{New: func() any {
	s := new(scanner)
	s.stack, s.path, s.keys = s.stackBuf[:0], s.pathBuf[:0], s.keysBuf[:0]
	return s
}}

// Bounds of the buffers a pooled scanner keeps once a walk has grown them
// past its inline ones: a document nested or keyed a little more than
// the inline buffers hold (a search answer) does not cost a scanner per
// walk, and a rare large one does not pin its memory.
const (
	maxPooledDepth = 64
	maxPooledKeys  = 256
)

// release forgets the document and puts s back in the pool, unless the
// walk grew it past the pooled bounds.
func (s *scanner) release() {
	clear(s.stack[:cap(s.stack)])
	clear(s.path[:cap(s.path)])
	clear(s.keys[:cap(s.keys)])
	s.data, s.doc, s.w = nil, "", nil
	if cap(s.stack) <= maxPooledDepth && cap(s.path) <= maxPooledDepth && cap(s.keys) <= maxPooledKeys {
		s.stack, s.path, s.keys = s.stack[:0], s.path[:0], s.keys[:0]
		scanners.Put(s)
	}
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
		if !found && s.doc != "" {
			key = s.doc[pos+1 : end-1]
		} else if !found {
			key = s.cachedKey(raw)
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
	if s.w.Keys != nil && !found && !top.anyKeys {
		return "", 0, &Error{Err: ErrUnknownKey, Offset: pos, Key: key, Path: s.objectPath(), known: s.w.Keys}
	}
	mine := s.keys[top.keyStart:]
	if top.set != nil {
		if _, dup := top.set[key]; dup {
			return "", 0, &Error{Err: ErrDuplicateKey, Offset: pos, Key: key, Path: s.objectPath()}
		}
		top.set[key] = struct{}{}
	} else {
		for _, k := range mine {
			if k == key {
				return "", 0, &Error{Err: ErrDuplicateKey, Offset: pos, Key: key, Path: s.objectPath()}
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

// objectPath returns a copy of the innermost object's path, while one of
// its keys is being read.
func (s *scanner) objectPath() Path {
	return append(Path(nil), s.path[:len(s.stack)-1]...)
}

// value reads the value at pos into *v: a scalar entirely, an object or
// array only its opening byte. end is just past what was read.
func (s *scanner) value(pos int, v *Value) (end int, err error) {
	data := s.data
	if pos == len(data) {
		return 0, s.syntax(-1, "")
	}
	*v = Value{Offset: pos}
	switch c := data[pos]; c {
	case '{':
		v.Kind = Object
		return pos + 1, nil
	case '[':
		v.Kind = Array
		return pos + 1, nil
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
			return 0, s.syntax(pos, "want a value")
		}
		v.Kind = Number
		end, err = s.number(pos)
	}
	if err != nil {
		return 0, err
	}
	v.Raw = data[pos:end:end]
	if v.Kind == String && !v.escaped && s.doc != "" {
		v.text = s.doc[pos+1 : end-1]
	}
	return end, nil
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
		// Most of a string is bytes it holds as they are: skip them
		// before looking at the one that ends the run.
		i = plainRun(data, i)
		if i == len(data) {
			break
		}
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

// plain[c] reports whether a string literal holds byte c as it is: c is
// not '"', '\\' or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < len(t); c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Bytes of a uint64 holding eight bytes, for notPlain.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// notPlain returns x's high bits set for the bytes of x that are not
// plain (below 0x20, '"' or '\\') and possibly for bytes above such a
// byte, for no other: the lowest byte flagged is the first one not
// plain. A byte b is below n (n <= 0x80) exactly when b - n borrows into
// its high bit while b's own high bit is clear; a byte equals c when b ^
// c is below 1 (b ^ c has b's high bit). A borrow from a lower byte can
// only flag a byte above one that is already flagged.
func notPlain(x uint64) uint64 {
	return ((x - 0x20*ones) | ((x ^ '"'*ones) - ones) | ((x ^ '\\'*ones) - ones)) &^ x & highs
}

// plainRun returns the index of the first byte of data at or after i
// that is not plain, or len(data): sixteen bytes a step while there are
// sixteen, then a word, then a byte at a time. The word test finds the
// byte in its word, so a run's end costs no byte loop.
func plainRun(data []byte, i int) int {
	for ; i+16 <= len(data); i += 16 {
		a := notPlain(binary.LittleEndian.Uint64(data[i:]))
		b := notPlain(binary.LittleEndian.Uint64(data[i+8:]))
		if a|b != 0 {
			if a != 0 {
				return i + bits.TrailingZeros64(a)>>3
			}
			return i + 8 + bits.TrailingZeros64(b)>>3
		}
	}
	if i+8 <= len(data) {
		if a := notPlain(binary.LittleEndian.Uint64(data[i:])); a != 0 {
			return i + bits.TrailingZeros64(a)>>3
		}
		i += 8
	}
	for i < len(data) && plain[data[i]] {
		i++
	}
	return i
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
