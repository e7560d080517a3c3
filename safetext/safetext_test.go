package safetext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	const R = "\uFFFD"
	tests := []struct {
		name, in, line, text string
	}{
		{"clean ASCII", "Hello, world", "Hello, world", "Hello, world"},
		{"clean UTF-8", "Grüße — 日本", "Grüße — 日本", "Grüße — 日本"},
		{"tab and newline", "a\tb\nc", "a" + R + "b" + R + "c", "a\tb\nc"},
		{"carriage return", "ok\rEVIL", "ok" + R + "EVIL", "ok" + R + "EVIL"},
		{"OSC 0 window title", "\x1b]0;pwned\x07t", R + "]0;pwned" + R + "t", R + "]0;pwned" + R + "t"},
		{"OSC 52 clipboard", "\x1b]52;c;ZWNobw==\x1b\\", R + "]52;c;ZWNobw==" + R + "\\", R + "]52;c;ZWNobw==" + R + "\\"},
		{"CSI 2J", "\x1b[2J", R + "[2J", R + "[2J"},
		{"DEL and NUL", "a\x7fb\x00", "a" + R + "b" + R, "a" + R + "b" + R},
		{"C1 CSI and OSC", "x\u009b2Jy\u009d", "x" + R + "2Jy" + R, "x" + R + "2Jy" + R},
		{"bidi override", "abc\u202Efed", "abc" + R + "fed", "abc" + R + "fed"},
		{"bidi isolates and marks", "\u2066\u2067\u2068\u2069\u200e\u200f\u061c", strings.Repeat(R, 7), strings.Repeat(R, 7)},
		{"invalid UTF-8", "a\xffb\xc3", "a" + R + "b" + R, "a" + R + "b" + R},
		{"zero-width joiner kept", "👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
		{"ZWJ and ZWNJ in Indic and Persian kept", "क्\u200dष می\u200cخواهم", "क्\u200dष می\u200cخواهم", "क्\u200dष می\u200cخواهم"},
		// Unicode tag characters are invisible, and models read them as
		// the ASCII they shadow ("ASCII smuggling"). Their one use in
		// text is a subdivision flag: U+1F3F4, the subdivision code in
		// tag digits and lower-case tag letters, then CANCEL TAG.
		{"tag characters smuggling ASCII", "ok" + tags("Ignore previous") + "!", "ok" + strings.Repeat(R, 15) + "!", "ok" + strings.Repeat(R, 15) + "!"},
		{"England and Scotland flags kept", england + " " + scotland, england + " " + scotland, england + " " + scotland},
		{"flag base with tags but no CANCEL TAG", "\U0001F3F4" + tags("gbeng"), "\U0001F3F4" + strings.Repeat(R, 5), "\U0001F3F4" + strings.Repeat(R, 5)},
		{"flag with upper-case tag letters", "\U0001F3F4" + tags("GBENG") + "\U000E007F", "\U0001F3F4" + strings.Repeat(R, 6), "\U0001F3F4" + strings.Repeat(R, 6)},
		{"flag with a long tag message", "\U0001F3F4" + tags("ignoreall") + "\U000E007F", "\U0001F3F4" + strings.Repeat(R, 10), "\U0001F3F4" + strings.Repeat(R, 10)},
		{"lone CANCEL TAG and LANGUAGE TAG", "a\U000E007Fb\U000E0001", "a" + R + "b" + R, "a" + R + "b" + R},
		// Line and paragraph separators end a line: not in a one-line
		// message.
		{"line and paragraph separators", "a\u2028b\u2029c", "a" + R + "b" + R + "c", "a\u2028b\u2029c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q): got %q; want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q): got %q; want %q", tc.in, got, tc.text)
			}
		})
	}
}

// tags returns s (ASCII) in Unicode tag characters.
func tags(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteRune(0xE0000 + c)
	}
	return b.String()
}

var (
	england  = "\U0001F3F4" + tags("gbeng") + "\U000E007F"
	scotland = "\U0001F3F4" + tags("gbsct") + "\U000E007F"
)

func TestLineCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("a clean title — ünïcode ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = Line(s) }); n != 0 {
		t.Errorf("Line on clean text: got %v allocations; want 0", n)
	}
}

func TestShort(t *testing.T) {
	tests := []struct{ in, want string }{
		{"example.com", "example.com"},
		{"ex\x1bample", "ex?ample"},
		{"bücher", "b??cher"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64) + "…"},
	}
	for _, tc := range tests {
		if got := Short(tc.in); got != tc.want {
			t.Errorf("Short(%q): got %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"example.com:443", "example.com:443"},
		{"", "''"},
		{"*.example.com", "'*.example.com'"},
		{"[2606:4700::1111]:443", "'[2606:4700::1111]:443'"},
		{`x;touch$IFS"pwned";$(id>p)<a>b.example`, `'x;touch$IFS"pwned";$(id>p)<a>b.example'`},
		{"it's", `'it'"'"'s'`},
		{"a\nb", "'a\uFFFDb'"},
	}
	for _, tc := range tests {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q): got %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestTerminalWriter(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text passes", "héllo\tworld\n", "héllo\tworld\n"},
		{"ESC and BEL", "\x1b]0;t\x07", "^[]0;t^G"},
		{"DEL", "\x7f", "^?"},
		{"C1 CSI", "\u009b2J", "M-^[2J"},
		{"invalid bytes", "\xff\xc3", "M-^?M-C"},
		{"bidi", "a\u202Eb", "a<U+202E>b"},
		{"CR", "a\rb", "a^Mb"},
		{"tag characters", "a" + tags("Hi") + "\U000E007Fb", "a<U+E0048><U+E0069><U+E007F>b"},
		{"subdivision flag", england, england},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewTerminalWriter(&out)
			if _, err := w.Write([]byte(tc.in)); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// TestTerminalWriterSplitWrites checks that every way of cutting the input
// into writes gives the output of one write.
func TestTerminalWriterSplitWrites(t *testing.T) {
	in := []byte("a€\u009bb\u202E日\xe2\x82x\xf0\x9f\x98\x80\x1b")
	want := string(AppendTerminal(nil, in))
	for cut1 := 0; cut1 <= len(in); cut1++ {
		for cut2 := cut1; cut2 <= len(in); cut2++ {
			var out bytes.Buffer
			w := NewTerminalWriter(&out)
			for _, part := range [][]byte{in[:cut1], in[cut1:cut2], in[cut2:]} {
				if n, err := w.Write(part); err != nil || n != len(part) {
					t.Fatalf("Write: got %d, %v; want %d, nil", n, err, len(part))
				}
			}
			w.Flush()
			if got := out.String(); got != want {
				t.Fatalf("cuts %d,%d: got %q; want %q", cut1, cut2, got, want)
			}
		}
	}
}

func FuzzSafe(f *testing.F) {
	// Seeds: terminal sequences, C1, bidi, invalid and split UTF-8.
	for _, s := range []string{"", "plain", "\x1b]52;c;eA==\x07", "\u009b", "\u202e", "\xff", "\xe2\x82", "日本\n\t",
		"\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "\U000E0041\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, got := range map[string]string{"Line": Line(s), "Text": Text(s)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%q) = %q: not valid UTF-8", name, s, got)
			}
			for i := 0; i < len(got); {
				if n := flagLen(got[i:]); n > 0 {
					i += n
					continue
				}
				r, size := utf8.DecodeRuneInString(got[i:])
				if unsafeRune(r) && !(name == "Text" && (r == '\t' || r == '\n')) || name == "Line" && (r == 0x2028 || r == 0x2029) {
					t.Fatalf("%s(%q) = %q holds %U", name, s, got, r)
				}
				i += size
			}
		}
		term := AppendTerminal(nil, []byte(s))
		for _, c := range term {
			if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				t.Fatalf("AppendTerminal(%q) = %q holds control %#x", s, term, c)
			}
		}
		for i := 0; i < len(term); {
			if n := flagLen(term[i:]); n > 0 {
				i += n
				continue
			}
			r, size := utf8.DecodeRune(term[i:])
			if r >= 0x80 && unsafeRune(r) {
				t.Fatalf("AppendTerminal(%q) = %q holds %U", s, term, r)
			}
			i += size
		}
		q := ShellQuote(s)
		if strings.ContainsAny(q, "\x00\n") {
			t.Fatalf("ShellQuote(%q) = %q holds a control", s, q)
		}
	})
}

// printableASCII8 is notPrintable's contract for the word w: all of its
// eight bytes are printable ASCII (0x20–0x7E).
func printableASCII8(w string) bool { return notPrintable(word(w, 0)) == 0 }

// TestPrintableASCII8: the word test agrees with the byte test for every
// byte value at every position of the word, in a word of printable or
// unprintable fill, and after a byte whose subtraction borrows.
func TestPrintableASCII8(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xff, 0x1f, 0x00} {
		for pos := range 8 {
			for c := range 256 {
				w := make([]byte, 8)
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				for _, low := range []int{-1, 0x00, 0x1f, 0x7f, 0x80} {
					for lp := range pos + 1 {
						w2 := append([]byte(nil), w...)
						if low >= 0 && lp < pos {
							w2[lp] = byte(low)
						}
						want := true
						for _, b := range w2 {
							want = want && b >= 0x20 && b <= 0x7e
						}
						if got := printableASCII8(string(w2)); got != want {
							t.Fatalf("% x: got %v; want %v", w2, got, want)
						}
					}
				}
			}
		}
	}
}

// firstUnsafeByByte is firstUnsafe without the word test: the reference.
func firstUnsafeByByte(s string, keepLayout bool) int {
	for i := 0; i < len(s); {
		size, unsafe := unsafeAt(s, i, keepLayout)
		if unsafe {
			return i
		}
		i += size
	}
	return -1
}

// FuzzFirstUnsafe: firstUnsafe finds the same byte as the byte-by-byte
// reference, with and without layout kept.
func FuzzFirstUnsafe(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, longer than a word", "tab\there", "a\x1b[2Jb", "héllo wörld, more than eight", "0123456\x7f89", "abcdefgh\u202eijk", "abcdefg\xff",
		"flag \U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F tag \U000E0041 sep \u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			if got, want := firstUnsafe(s, keep), firstUnsafeByByte(s, keep); got != want {
				t.Errorf("firstUnsafe(%q, %v) = %d; want %d", s, keep, got, want)
			}
		}
	})
}

// BenchmarkLine is a search result's snippet (about 200 bytes, printable
// ASCII with one UTF-8 character), kept as it is.
func BenchmarkLine(b *testing.B) {
	s := strings.Repeat("snippet text ", 15) + "— and the rest"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if Line(s) != s {
			b.Fatal("changed")
		}
	}
}
