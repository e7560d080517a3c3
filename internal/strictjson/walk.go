package strictjson

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting bound of a [Walker] whose MaxDepth is 0.
const DefaultMaxDepth = 32

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
	// AnyKeysAt lists objects whose keys Keys does not restrict, each by
	// its path as [Path.String] renders it ("headers", "rules[0].env"):
	// a map of arbitrary names inside a fixed schema. Such an object's
	// keys are still checked for duplicates; objects nested in it are
	// restricted again unless listed too.
	AnyKeysAt []string
	// Substrings makes every key outside Keys and every [Value.Text] of
	// an unescaped string a substring of one copy of the document, made
	// when the walk starts: one allocation per walk instead of one per
	// text and per key not met in an earlier walk (short keys are
	// cached). Any of them kept alive keeps the whole copy alive, so it
	// suits a document read once into values that live no longer than
	// it, not a file whose few values are kept. A reader that keeps a
	// few texts of a large document copies them itself
	// ([Value.AppendText]), as search's answer parse does.
	Substrings bool
}

// Walk checks in one pass that data is valid UTF-8 without a byte order
// mark ([ErrByteOrderMark]; CRLF line ends are white space) holding
// exactly one JSON value and nothing but whitespace after it, that no
// object has a duplicate key or, when w.Keys is set, a key outside it,
// and that nesting stays within w.MaxDepth. It uses no recursion, so
// hostile nesting cannot exhaust the stack.
//
// Before entering each value (every member and element, and the top level)
// Walk calls visit, if not nil, with the value's path and the value. The
// path's storage is reused: it is only valid during the call. A non-nil error from visit stops the
// walk and is returned as is, so problems are reported in document order:
// a visitor that refuses a list where a number belongs is never overtaken
// by an error further on. A duplicate or unknown key is reported before its
// value is visited.
//
// Walk's own errors are [ErrEmpty] or an *[Error] wrapping one of the
// other sentinels.
//
// Once Walk has returned nil, encoding/json decodes data without surprises:
// no duplicate key can override an earlier one, and with Keys set no key
// can reach a struct field through case-insensitive matching.
func (w *Walker) Walk(data []byte, visit func(Path, Value) error) error {
	if bom := ByteOrderMark(data); bom != "" {
		return &Error{Err: ErrByteOrderMark, detail: bom}
	}
	if !utf8.Valid(data) {
		return &Error{Err: ErrInvalidUTF8, Offset: firstInvalidUTF8(data)}
	}
	s := scanners.Get().(*scanner)
	err := s.walk(w, data, visit)
	s.release()
	return err
}

// walk is Walk on a scanner fresh from the pool.
func (s *scanner) walk(w *Walker, data []byte, visit func(Path, Value) error) error {
	s.data, s.w = data, w
	if w.Substrings {
		s.doc = string(data)
	}
	maxDepth := w.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	pos := s.skipSpace(0)
	if pos == len(data) {
		return ErrEmpty
	}
	var v Value
	for {
		// A value starts at pos.
		end, err := s.value(pos, &v)
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
			f := frame{object: v.Kind == Object, keyStart: len(s.keys)}
			f.anyKeys = f.object && len(w.AnyKeysAt) > 0 && w.anyKeysAt(s.path)
			s.stack = append(s.stack, f)
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

// anyKeysAt reports whether the object at p is one of w.AnyKeysAt.
func (w *Walker) anyKeysAt(p Path) bool {
	for _, want := range w.AnyKeysAt {
		if pathIs(p, want) {
			return true
		}
	}
	return false
}

// pathIs reports whether p.String() == want, without building the string.
func pathIs(p Path, want string) bool {
	for i, step := range p {
		if step.IsKey() {
			if i > 0 {
				if want == "" || want[0] != '.' {
					return false
				}
				want = want[1:]
			}
			if !strings.HasPrefix(want, step.Key) {
				return false
			}
			want = want[len(step.Key):]
			continue
		}
		if want == "" || want[0] != '[' {
			return false
		}
		n := strings.IndexByte(want, ']')
		if n < 0 || want[1:n] != strconv.Itoa(step.Index) {
			return false
		}
		want = want[n+1:]
	}
	return want == ""
}

// The byte order marks [Walk] names, as Error.detail.
const (
	bomUTF8  = "UTF-8"
	bomUTF16 = "UTF-16"
)

// ByteOrderMark names the byte order mark data starts with, "UTF-8" or
// "UTF-16", "" for none: Notepad's "UTF-8 with BOM" and PowerShell 5's
// redirections (UTF-16) write one, and JSON allows neither. [Walk]
// refuses it ([ErrByteOrderMark]); internal/secretfile asks it of a
// secret file, which is not JSON.
func ByteOrderMark(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf:
		return bomUTF8
	case len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff):
		return bomUTF16
	}
	return ""
}
