package content

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// splitAll runs nextWord over s and returns its words, each prefixed with
// "_" when white space came before it, and a lone "_" for trailing space.
func splitAll(s string, unicodeSpace bool) []string {
	var out []string
	for s != "" {
		word, space, rest := nextWord(s, unicodeSpace)
		if space {
			word = "_" + word
		}
		out = append(out, word)
		s = rest
	}
	return out
}

// splitRef is the same split written the plain way, by FieldsFunc-like
// scanning with the writers' definitions of white space.
func splitRef(s string, unicodeSpace bool) []string {
	isSpace := func(r rune) bool {
		return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' ||
			(unicodeSpace && r > utf8.RuneSelf && r != '\u00a0' && unicode.IsSpace(r))
	}
	var out []string
	space, start := false, -1
	step := func(i int, r rune) {
		if isSpace(r) {
			if start >= 0 {
				out = append(out, map[bool]string{true: "_"}[space]+s[start:i])
				start, space = -1, false
			}
			space = true
		} else if start < 0 {
			start = i
		}
	}
	if unicodeSpace {
		for i, r := range s {
			step(i, r)
		}
	} else {
		for i := 0; i < len(s); i++ {
			step(i, rune(s[i]))
		}
	}
	switch {
	case start >= 0:
		out = append(out, map[bool]string{true: "_"}[space]+s[start:])
	case space:
		out = append(out, "_")
	}
	return out
}

func TestNextWord(t *testing.T) {
	tests := []struct {
		in          string
		ascii, utf8 []string
	}{
		{"", nil, nil},
		{"  ", []string{"_"}, []string{"_"}},
		{"a b", []string{"a", "_b"}, []string{"a", "_b"}},
		{"\ta\r\n b\f", []string{"_a", "_b", "_"}, []string{"_a", "_b", "_"}},
		{"a\u2003b", []string{"a\u2003b"}, []string{"a", "_b"}},                // em space: Unicode only
		{"a\u00a0b c", []string{"a\u00a0b", "_c"}, []string{"a\u00a0b", "_c"}}, // no-break space joins
		{"\xff \x85", []string{"\xff", "_\x85"}, []string{"\xff", "_\x85"}},    // invalid UTF-8 is a word
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := splitAll(tc.in, false); !cmp.Equal(got, tc.ascii) {
				t.Errorf("ASCII: got %q; want %q", got, tc.ascii)
			}
			if got := splitAll(tc.in, true); !cmp.Equal(got, tc.utf8) {
				t.Errorf("Unicode: got %q; want %q", got, tc.utf8)
			}
		})
	}
}

// FuzzNextWord checks nextWord against the plain scan on any input.
func FuzzNextWord(f *testing.F) {
	for _, s := range []string{
		"",
		"hello  world ",
		"\u2028line\u3000sep\u00a0nbsp", // Unicode separators and a no-break space
		"\xc2\x85 NEL \xc2",             // U+0085 and a truncated sequence
		strings.Repeat("ab \t", 8),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range []bool{false, true} {
			if got, want := splitAll(s, u), splitRef(s, u); !cmp.Equal(got, want) {
				t.Errorf("nextWord(%q, %v): got %q; want %q", s, u, got, want)
			}
		}
	})
}
