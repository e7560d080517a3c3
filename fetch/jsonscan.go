package fetch

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a strict, allocation-light reader of the arguments document:
// RFC 8259 JSON, read left to right once. It exists because encoding/json
// silently keeps the last of duplicate keys, and because walking the
// document with json.Decoder.Token costs several microseconds a call on
// the PrepareCall path. It is deliberately stricter than encoding/json in
// one way: a string must be valid UTF-8 (encoding/json replaces bad bytes
// with U+FFFD; a secret-free message cannot say which bytes were bad, so
// the document is refused instead).
//
// Its errors are *refusal.Error values of code invalid_arguments that name
// a byte offset at most, never a piece of the document.
type scanner struct {
	s string
	i int
}

func (sc *scanner) skipSpace() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (sc *scanner) peek() byte {
	sc.skipSpace()
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

func (sc *scanner) syntax() error {
	if sc.i >= len(sc.s) {
		return errArgs("arguments are not valid JSON (unexpected end)")
	}
	return errArgs("arguments are not valid JSON (at byte " + strconv.Itoa(sc.i) + ")")
}

// expect consumes byte c (after spaces) or fails.
func (sc *scanner) expect(c byte) error {
	if sc.peek() != c {
		return sc.syntax()
	}
	sc.i++
	return nil
}

// str reads a string. Without escapes the result is a substring of the
// document (no allocation).
func (sc *scanner) str() (string, error) {
	if sc.peek() != '"' {
		return "", sc.syntax()
	}
	sc.i++
	start := sc.i
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == '"':
			out := sc.s[start:sc.i]
			sc.i++
			return out, nil
		case c == '\\':
			return sc.strSlow(start)
		case c < 0x20:
			return "", sc.syntax()
		case c < utf8.RuneSelf:
			sc.i++
		default:
			r, size := utf8.DecodeRuneInString(sc.s[sc.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", errArgs("arguments are not valid UTF-8 (at byte " + strconv.Itoa(sc.i) + ")")
			}
			sc.i += size
		}
	}
	return "", sc.syntax()
}

// strSlow finishes a string that has escapes, from its content start.
// Escapes decode as encoding/json decodes them: a lone or mismatched UTF-16
// surrogate becomes U+FFFD.
func (sc *scanner) strSlow(start int) (string, error) {
	var b strings.Builder
	b.WriteString(sc.s[start:sc.i])
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == '"':
			sc.i++
			return b.String(), nil
		case c == '\\':
			if sc.i+1 >= len(sc.s) {
				sc.i = len(sc.s)
				return "", sc.syntax()
			}
			e := sc.s[sc.i+1]
			sc.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := sc.hex4()
				if !ok {
					return "", sc.syntax()
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					save := sc.i
					if sc.i+1 < len(sc.s) && sc.s[sc.i] == '\\' && sc.s[sc.i+1] == 'u' {
						sc.i += 2
						if lo, ok := sc.hex4(); ok {
							if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
								r2 = dec
							} else {
								sc.i = save // not a pair: the second escape stands alone
							}
						} else {
							return "", sc.syntax()
						}
					}
					r = r2
				}
				b.WriteRune(r)
			default:
				sc.i--
				return "", sc.syntax()
			}
		case c < 0x20:
			return "", sc.syntax()
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			sc.i++
		default:
			r, size := utf8.DecodeRuneInString(sc.s[sc.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", errArgs("arguments are not valid UTF-8 (at byte " + strconv.Itoa(sc.i) + ")")
			}
			b.WriteString(sc.s[sc.i : sc.i+size])
			sc.i += size
		}
	}
	return "", sc.syntax()
}

func (sc *scanner) hex4() (rune, bool) {
	if sc.i+4 > len(sc.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(sc.s[sc.i : sc.i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	sc.i += 4
	return r, true
}

// number reads a JSON number and returns its literal.
func (sc *scanner) number() (string, error) {
	sc.skipSpace()
	start := sc.i
	if sc.i < len(sc.s) && sc.s[sc.i] == '-' {
		sc.i++
	}
	switch {
	case sc.i < len(sc.s) && sc.s[sc.i] == '0':
		sc.i++
	case sc.i < len(sc.s) && '1' <= sc.s[sc.i] && sc.s[sc.i] <= '9':
		sc.digits()
	default:
		return "", sc.syntax()
	}
	if sc.i < len(sc.s) && sc.s[sc.i] == '.' {
		sc.i++
		if sc.digits() == 0 {
			return "", sc.syntax()
		}
	}
	if sc.i < len(sc.s) && (sc.s[sc.i] == 'e' || sc.s[sc.i] == 'E') {
		sc.i++
		if sc.i < len(sc.s) && (sc.s[sc.i] == '+' || sc.s[sc.i] == '-') {
			sc.i++
		}
		if sc.digits() == 0 {
			return "", sc.syntax()
		}
	}
	return sc.s[start:sc.i], nil
}

func (sc *scanner) digits() int {
	n := 0
	for sc.i < len(sc.s) && '0' <= sc.s[sc.i] && sc.s[sc.i] <= '9' {
		sc.i++
		n++
	}
	return n
}

// null consumes the literal null (the caller has peeked 'n').
func (sc *scanner) null() error {
	if !strings.HasPrefix(sc.s[sc.i:], "null") {
		return sc.syntax()
	}
	sc.i += 4
	return nil
}

// kind names what value starts at the next byte, for type errors.
type kind int

const (
	kindInvalid kind = iota
	kindString
	kindNumber
	kindNull
	kindOther // true, false, an array, or an object where none is expected
	kindObject
)

func (sc *scanner) kind() kind {
	switch c := sc.peek(); {
	case c == '"':
		return kindString
	case c == '-' || ('0' <= c && c <= '9'):
		return kindNumber
	case c == 'n':
		return kindNull
	case c == '{':
		return kindObject
	case c == 't' || c == 'f' || c == '[':
		return kindOther
	}
	return kindInvalid
}
