package safetext

import (
	"io"
	"unicode/utf8"
)

// TerminalWriter writes raw bytes to a terminal with controls made
// visible as `cat -v` shows them: C0 controls other than tab and newline
// as ^X (ESC as ^[), DEL as ^?, C1 controls as M-^X (U+009B as M-^[),
// bytes that are not UTF-8 as M-x, bidi controls and tag characters
// (outside a subdivision flag) as <U+XXXX>. Everything else, valid UTF-8
// text included, passes unchanged. A UTF-8 sequence split across two
// Writes is judged whole; a flag split across two Writes has its tag
// characters shown as <U+XXXXX>. Use it only when the
// destination is a terminal: a pipe or a file gets the bytes untouched.
type TerminalWriter struct {
	w       io.Writer
	pending [utf8.UTFMax]byte
	npend   int
	buf     []byte
}

// NewTerminalWriter returns a TerminalWriter writing to w.
func NewTerminalWriter(w io.Writer) *TerminalWriter { return &TerminalWriter{w: w} }

// Write escapes p and writes it; it reports len(p) on success. An
// incomplete UTF-8 sequence at the end of p is held for the next Write or
// for [TerminalWriter.Flush].
func (t *TerminalWriter) Write(p []byte) (int, error) {
	n := len(p)
	out := t.buf[:0]
	if t.npend > 0 {
		// Feed the held sequence until it is a whole rune, or shows it
		// never will be (utf8.FullRune is true for an invalid start too).
		for len(p) > 0 && !utf8.FullRune(t.pending[:t.npend]) {
			t.pending[t.npend] = p[0]
			t.npend++
			p = p[1:]
		}
		if !utf8.FullRune(t.pending[:t.npend]) {
			return n, nil
		}
		out = appendEscaped(out, t.pending[:t.npend])
		t.npend = 0
	}
	// Hold a trailing incomplete sequence.
	if k := incompleteTail(p); k > 0 {
		t.npend = copy(t.pending[:], p[len(p)-k:])
		p = p[:len(p)-k]
	}
	out = appendEscaped(out, p)
	t.buf = out[:0]
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes a held incomplete sequence, escaped as bytes that are not
// UTF-8.
func (t *TerminalWriter) Flush() error {
	if t.npend == 0 {
		return nil
	}
	out := appendEscaped(nil, t.pending[:t.npend])
	t.npend = 0
	_, err := t.w.Write(out)
	return err
}

// incompleteTail returns the length of a UTF-8 sequence at the end of p
// that has started but not finished, or 0.
func incompleteTail(p []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(p); k++ {
		c := p[len(p)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a start byte: is the sequence from it complete?
			if utf8.FullRune(p[len(p)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// AppendTerminal appends p escaped as [TerminalWriter] does to dst.
func AppendTerminal(dst, p []byte) []byte { return appendEscaped(dst, p) }

func appendEscaped(dst, p []byte) []byte {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\t' || c == '\n':
				dst = append(dst, c)
			case c < 0x20:
				dst = append(dst, '^', c+0x40)
			case c == 0x7f:
				dst = append(dst, '^', '?')
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == flagBase:
			size = max(size, flagLen(p[i:]))
			dst = append(dst, p[i:i+size]...)
		case r == utf8.RuneError && size == 1:
			dst = appendMeta(dst, c)
		case r >= 0x80 && r <= 0x9f:
			dst = append(dst, 'M', '-', '^', byte(r-0x80)+0x40)
		case unsafeRune(r):
			dst = append(dst, "<U+"...)
			dst = appendHex4(dst, r)
			dst = append(dst, '>')
		default:
			dst = append(dst, p[i:i+size]...)
		}
		i += size
	}
	return dst
}

// appendMeta writes a byte ≥ 0x80 as cat -v does: M- and the low seven
// bits, themselves made visible.
func appendMeta(dst []byte, c byte) []byte {
	dst = append(dst, 'M', '-')
	c &= 0x7f
	switch {
	case c < 0x20:
		return append(dst, '^', c+0x40)
	case c == 0x7f:
		return append(dst, '^', '?')
	}
	return append(dst, c)
}

// appendHex4 writes r in upper-case hex, at least four digits.
func appendHex4(dst []byte, r rune) []byte {
	const digits = "0123456789ABCDEF"
	shift := 12
	for shift < 28 && r>>(shift+4) != 0 {
		shift += 4
	}
	for ; shift >= 0; shift -= 4 {
		dst = append(dst, digits[r>>shift&0xf])
	}
	return dst
}
