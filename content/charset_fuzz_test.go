package content

import (
	"bytes"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzDecodeToUTF8: a body and the charset a server or a <meta> declares
// are both hostile. The text is always valid UTF-8 and bounded (no
// encoding makes a byte more than a U+FFFD's three bytes, UTF-16 and the
// ISO-2022 escapes included, plus one for a dangling unit), the charset
// named is non-empty, and the notes are few, short, valid UTF-8 and free
// of control characters (the label is quoted, never copied raw).
func FuzzDecodeToUTF8(f *testing.F) {
	for _, s := range []struct {
		body, label string
		html        bool
	}{
		{"plain ascii", "", false},
		{"caf\xe9", "iso-8859-1", false},
		{"café", "iso-8859-1", false},
		{"\xef\xbb\xbfbom utf-8", "windows-1252", false},
		{"\xff\xfeh\x00i\x00", "", false},
		{"\xfe\xff\x00h\x00", "", false},
		{"<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>", "", true},
		{"<meta http-equiv=Content-Type content='text/html; charset=utf-16'><p>x</p>", "", true},
		{"<meta charset=x-user-defined>\x80\x81", "", true},
		{"\x1b$B$3$s\x1b(B", "iso-2022-jp", false},
		{"\xc3\x28 damaged", "", false},
		{"body", "bogus\x00\x1b[31m-label-that-is-rather-long-indeed", false},
		{"\x80\x81\x82", "utf-8", true},
		{"\xa4\xa1", "gb18030", false},
	} {
		f.Add([]byte(s.body), s.label, s.html)
	}
	f.Fuzz(func(t *testing.T, body []byte, label string, isHTML bool) {
		in := bytes.Clone(body)
		d := decodeToUTF8(body, label, isHTML)
		if !bytes.Equal(in, body) {
			t.Fatalf("decodeToUTF8 changed the body")
		}
		if !utf8.Valid(d.text) {
			t.Fatalf("decodeToUTF8(%q, %q) = %q: not UTF-8", body, label, d.text)
		}
		if len(d.text) > 3*len(body)+4 {
			t.Fatalf("decodeToUTF8(%q, %q): %d bytes of text from %d", body, label, len(d.text), len(body))
		}
		if d.charset == "" {
			t.Fatalf("decodeToUTF8(%q, %q): no charset named", body, label)
		}
		if len(d.notes) > 3 {
			t.Fatalf("decodeToUTF8(%q, %q): %d notes %q", body, label, len(d.notes), d.notes)
		}
		for _, n := range d.notes {
			if !utf8.ValidString(n) || len(n) > 512 {
				t.Fatalf("note %q: not UTF-8 or too long", n)
			}
			for _, r := range n {
				if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
					t.Fatalf("note %q holds control %U", n, r)
				}
			}
		}
	})
}
