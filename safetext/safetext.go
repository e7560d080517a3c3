// Package safetext makes untrusted text safe to show: in a one-line
// message, on a terminal, to a model, or pasted into a shell. It imports
// nothing of ocfetch, so every package that shows text uses this one copy
// of the rules.
//
// What is unsafe to show, everywhere:
//   - C0 controls (U+0000–U+001F) and DEL (U+007F): ESC starts the
//     terminal sequences that set a window title (OSC 0), write the
//     clipboard (OSC 52) or clear the screen (CSI 2J); CR overwrites a line.
//   - C1 controls (U+0080–U+009F): U+009B is CSI and U+009D is OSC on
//     terminals that honour 8-bit controls.
//   - Bidirectional overrides, embeddings, isolates and marks (U+202A–U+202E,
//     U+2066–U+2069, U+200E, U+200F, U+061C): they make text read in an
//     order other than the one it is stored in ("Trojan Source").
//   - Unicode tag characters (U+E0000–U+E007F), outside a subdivision
//     flag: they are invisible, and a model reads each as the ASCII
//     character it shadows ("ASCII smuggling": a page can carry
//     instructions a person reviewing the text never sees). Their one use
//     in text is an emoji tag sequence for a flag such as England's:
//     U+1F3F4, a subdivision code of 1–7 tag digits or lower-case tag
//     letters, then U+E007F CANCEL TAG; such a sequence is kept whole.
//   - Bytes that are not valid UTF-8.
//
// [Line] and [Text] replace each with U+FFFD, visibly; [Text] keeps tab
// and newline, and [Line] also replaces the line and paragraph separators
// U+2028 and U+2029. Zero-width joiners and non-joiners are kept: emoji
// sequences and Indic and Arabic-script text need them. [Short] quotes an untrusted token inside a message in
// printable ASCII only. [ShellQuote] makes an argument that a shell pastes
// back as one word. [TerminalWriter] escapes raw bytes for a terminal as
// `cat -v` does.
package safetext

import (
	"strings"
	"unicode/utf8"
)

// Replacement is what an unsafe character becomes in [Line] and [Text].
const Replacement = '\uFFFD'

// unsafeRune reports whether r must not be shown as is. Tab and newline
// are unsafe here; [Text] lets them through itself.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	case r >= tagFirst && r <= tagLast:
		return true
	}
	return false
}

// The Unicode tag characters, and the flag that may carry them.
const (
	tagFirst  = 0xE0000
	tagLast   = 0xE007F // CANCEL TAG
	flagBase  = 0x1F3F4 // WAVING BLACK FLAG
	maxFlagID = 7       // a CLDR subdivision id: region (2–3) and 1–4 more
)

// flagLen returns the length in bytes of the subdivision flag at the
// start of s, U+1F3F4 followed by 1–maxFlagID tag digits (U+E0030–39) or
// lower-case tag letters (U+E0061–7A) and U+E007F, or 0 when s does not
// start with one. It reads bytes: U+1F3F4 is F0 9F 8F B4, and the tag
// characters are F3 A0 80 xx and F3 A0 81 xx.
func flagLen[T string | []byte](s T) int {
	if len(s) < 4 || s[0] != 0xF0 || s[1] != 0x9F || s[2] != 0x8F || s[3] != 0xB4 {
		return 0
	}
	for i, n := 4, 0; i+4 <= len(s) && s[i] == 0xF3 && s[i+1] == 0xA0; i, n = i+4, n+1 {
		c2, c3 := s[i+2], s[i+3]
		if c2 == 0x81 && c3 == 0xBF { // CANCEL TAG
			if n == 0 {
				return 0
			}
			return i + 4
		}
		digit := c2 == 0x80 && c3 >= 0xB0 && c3 <= 0xB9
		lower := c2 == 0x81 && c3 >= 0xA1 && c3 <= 0xBA
		if n == maxFlagID || !digit && !lower {
			return 0
		}
	}
	return 0
}

// lineSeparator reports U+2028 and U+2029, which [Line] replaces.
func lineSeparator(r rune) bool { return r == 0x2028 || r == 0x2029 }

// IsUnsafe reports whether r is one of the characters this package
// replaces (tab and newline included; tag characters, which a
// subdivision flag keeps, included; U+2028 and U+2029, which only [Line]
// replaces, not).
func IsUnsafe(r rune) bool { return unsafeRune(r) }

// Line returns s with every unsafe character (tab and newline included)
// and every invalid UTF-8 byte replaced by U+FFFD, for text shown on one
// line: a title, a header value, a message. A clean s is returned as is,
// without allocating.
func Line(s string) string { return clean(s, false) }

// Text returns s as [Line] does but keeps tab and newline, for multi-line
// content shown to a person or a model.
func Text(s string) string { return clean(s, true) }

func clean(s string, keepLayout bool) string {
	i := firstUnsafe(s, keepLayout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLayout && (c == '\t' || c == '\n')) {
				b.WriteRune(Replacement)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == flagBase:
			size = max(size, flagLen(s[i:]))
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError && size == 1 || unsafeRune(r) || !keepLayout && lineSeparator(r):
			b.WriteRune(Replacement)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s that clean would
// change, or -1.
func firstUnsafe(s string, keepLayout bool) int {
	for i := 0; i < len(s); {
		// Printable ASCII, the bulk of most text, sixteen bytes a step,
		// then eight (word and notPrintable are inlined: one load and a
		// few operations per word).
		for i+16 <= len(s) && notPrintable(word(s, i))|notPrintable(word(s, i+8)) == 0 {
			i += 16
		}
		for i+8 <= len(s) && notPrintable(word(s, i)) == 0 {
			i += 8
		}
		if i >= len(s) {
			break
		}
		size, unsafe := unsafeAt(s, i, keepLayout)
		if unsafe {
			return i
		}
		i += size
	}
	return -1
}

// unsafeAt reads the character at s[i] (i < len(s)) and reports its size
// in bytes and whether clean would change it: the one rule firstUnsafe
// applies character by character.
func unsafeAt(s string, i int, keepLayout bool) (size int, unsafe bool) {
	if c := s[i]; c < utf8.RuneSelf {
		return 1, (c < 0x20 || c == 0x7f) && !(keepLayout && (c == '\t' || c == '\n'))
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == flagBase {
		return max(size, flagLen(s[i:])), false
	}
	return size, r == utf8.RuneError && size == 1 || unsafeRune(r) || !keepLayout && lineSeparator(r)
}

// Bytes of a uint64 holding eight bytes, for notPrintable.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// word returns s[i:i+8] (i+8 <= len(s)) as a little-endian uint64: one
// load.
func word(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// notPrintable returns x's high bits set for bytes that are not
// printable ASCII (0x20–0x7E) and possibly for bytes above such a byte,
// none else: it is 0 exactly when all eight are printable. A byte is
// flagged by its own high bit (0x80 and up), by b - 0x20 borrowing (below
// 0x20) or by (b ^ 0x7F) - 1 borrowing (0x7F). A subtraction borrows
// out of a byte only if the byte is one of those or a borrow came into
// it, so a chain of borrows starts at a byte that is flagged already.
// Two words are tested by ORing the results, not the words:
// notPrintable(x|y) is not notPrintable(x)|notPrintable(y).
func notPrintable(x uint64) uint64 {
	return (x | (x - 0x20*ones) | ((x ^ 0x7f*ones) - ones)) & highs
}

// ShortMax is the number of bytes of an untrusted token [Short] keeps.
const ShortMax = 64

// Short returns s cut to [ShortMax] bytes (then "…"), with every byte that
// is not printable ASCII replaced by '?', for quoting an untrusted token
// (a host, a scheme, a header name) inside a message.
func Short(s string) string {
	clean := len(s) <= ShortMax
	for i := 0; clean && i < len(s); i++ {
		clean = s[i] >= 0x20 && s[i] < 0x7f
	}
	if clean {
		return s
	}
	b := make([]byte, 0, min(len(s), ShortMax)+len("…"))
	for i := 0; i < len(s) && len(b) < ShortMax; i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			c = '?'
		}
		b = append(b, c)
	}
	if len(s) > ShortMax {
		b = append(b, "…"...)
	}
	return string(b)
}

// ShellQuote returns s as one word that POSIX shells and PowerShell both
// read back as s and that runs nothing: s itself when it holds only
// letters, digits and "-._:/@%+=,", else s in single quotes, with each
// single quote inside written as '"'"' (POSIX; PowerShell users seldom
// meet it, since hosts cannot hold one). Unsafe characters are replaced
// as in [Line] first, so a quoted word never carries a control.
func ShellQuote(s string) string {
	s = Line(s)
	if s == "" {
		return "''"
	}
	plain := true
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-._:/@%+=,", c) >= 0
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
