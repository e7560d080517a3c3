package content

import (
	"unicode/utf8"
)

// Page is one window of a converted document, counted in runes (Unicode
// code points), the way the MCP fetch server counts `start_index` and
// `max_length`.
type Page struct {
	// Content is the window's text. It never splits a UTF-8 sequence.
	Content string
	// StartIndex is the rune index Content starts at (the request, with a
	// negative index taken as 0).
	StartIndex int
	// NextStartIndex is the index right after Content: pass it as
	// start_index to read on. When Truncated is false it equals Total.
	NextStartIndex int
	// Truncated reports that text remains after Content.
	Truncated bool
	// Remaining is the number of runes after Content.
	Remaining int
	// Total is the number of runes in the whole document.
	Total int
}

// PastEnd reports that the request started at or beyond the end of a
// non-empty document: Content is empty and there is nothing more to read.
// Callers should say so to the model ("no more content; the document has
// Total characters") rather than return a silent empty page.
func (p Page) PastEnd() bool { return p.Total > 0 && p.StartIndex >= p.Total }

// Paginate returns the window of text starting at rune startIndex and at
// most maxLength runes long. maxLength <= 0 means no limit; a negative
// startIndex is taken as 0; a startIndex at or beyond the end gives an empty
// Content with NextStartIndex == Total and PastEnd true.
//
// Paginate is O(len(text)) and allocates nothing: Content is a substring.
// Concatenating the Content of successive pages, each started at the
// previous NextStartIndex, gives back text exactly.
func Paginate(text string, startIndex, maxLength int) Page {
	if startIndex < 0 {
		startIndex = 0
	}
	p := Page{StartIndex: startIndex}

	// Byte offset of rune startIndex, counting as we go.
	start, runes := runeOffset(text, 0, startIndex)
	if runes < startIndex { // ran off the end
		p.Total = runes
		p.NextStartIndex = runes
		return p
	}
	end := len(text)
	if maxLength > 0 {
		var n int
		end, n = runeOffset(text, start, maxLength)
		runes += n
	} else {
		runes += countRunes(text[start:])
	}
	p.Content = text[start:end]
	p.NextStartIndex = runes
	p.Remaining = countRunes(text[end:])
	p.Total = runes + p.Remaining
	p.Truncated = p.Remaining > 0
	return p
}

// runeOffset advances n runes from byte offset from and returns the byte
// offset reached and how many runes were passed (fewer than n only at the
// end of s). ASCII takes the fast path, a word at a time.
func runeOffset(s string, from, n int) (off, passed int) {
	if len(s)-from <= n {
		// Every rune is at least a byte: the rest of s fits whole.
		return len(s), countRunes(s[from:])
	}
	i := from
	for passed < n && i < len(s) {
		if n-passed >= 8 && len(s)-i >= 8 && asciiWord(s, i) {
			i += 8 // eight ASCII bytes are eight runes
			passed += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		passed++
	}
	return i, passed
}

// countRunes is utf8.RuneCountInString (an invalid byte counts as one
// rune), fast on the mostly-ASCII text most pages are: a page that fits
// the window is still counted whole for Total. Past an ASCII byte, ASCII
// is taken a 64-bit word at a time and then 32 bytes at a time, the way
// utf8.ValidString skips it; anything else is decoded rune by rune.
func countRunes(s string) int {
	n := 0
	for len(s) > 0 {
		if s[0] >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			n++
			continue
		}
		s = s[1:]
		n++
		if len(s) < 8 || !asciiWord(s, 0) {
			continue
		}
		s = s[8:]
		n += 8
		for len(s) >= 32 && (word(s)|word(s[8:])|word(s[16:])|word(s[24:]))&0x8080808080808080 == 0 {
			s = s[32:]
			n += 32
		}
	}
	return n
}

// word is the first eight bytes of s, little-endian: one load.
func word(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// asciiWord reports whether the eight bytes of s at i are all ASCII: one
// 64-bit load (the compiler merges the byte loads) and one test.
func asciiWord(s string, i int) bool { return word(s[i:])&0x8080808080808080 == 0 }
