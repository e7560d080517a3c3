package content

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

func TestDecodeToUTF8(t *testing.T) {
	sjis := func(s string) []byte { return mustEncode(t, japanese.ShiftJIS, s) }
	cp1252 := func(s string) []byte { return mustEncode(t, charmap.Windows1252, s) }
	utf16le := func(s string) []byte {
		return mustEncode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), s)
	}
	tests := []struct {
		name        string
		body        []byte
		contentType string
		html        bool
		want        string
		wantCharset string
		wantNote    string // substring of a note; "" means no notes
	}{
		{"plain UTF-8", []byte("héllo"), "text/plain", false, "héllo", "utf-8", ""},
		{"UTF-8 BOM stripped", []byte("\xef\xbb\xbfhéllo"), "text/plain; charset=iso-8859-1", false, "héllo", "utf-8", ""},
		{"UTF-16LE BOM wins over header", utf16le("naïve"), "text/plain; charset=utf-8", false, "naïve", "utf-16le", ""},
		{"charset from Content-Type", sjis("日本語"), "text/plain; charset=Shift_JIS", false, "日本語", "shift_jis", ""},
		{"charset label aliases", cp1252("café"), "text/html; charset=ISO-8859-1", true, "café", "windows-1252", ""},
		{"charset from meta", sjis(`<meta charset="shift_jis"><p>日本語</p>`), "text/html", true, `<meta charset="shift_jis"><p>日本語</p>`, "shift_jis", ""},
		{"charset from http-equiv meta", sjis(`<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>日本</p>`), "text/html", true,
			`<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>日本</p>`, "shift_jis", ""},
		{"header beats meta", cp1252(`<meta charset="shift_jis"><p>café</p>`), "text/html; charset=windows-1252", true, `<meta charset="shift_jis"><p>café</p>`, "windows-1252", ""},
		{"meta ignored outside HTML", cp1252(`<meta charset="shift_jis">café`), "text/plain", false, `<meta charset="shift_jis">café`, "windows-1252", "decoded as windows-1252"},
		{"UTF-8 body mislabelled ISO-8859-1 by the server", []byte("café"), "text/plain; charset=iso-8859-1", false, "café", "utf-8", "valid UTF-8: decoded as UTF-8"},
		{"ASCII body with a legacy label", []byte("plain"), "text/plain; charset=iso-8859-1", false, "plain", "windows-1252", ""},
		// The HTML standard's prescan reads a <meta> naming UTF-16 as
		// UTF-8: the meta was found in ASCII-compatible bytes, so the page
		// cannot be UTF-16 (decoding it so gave CJK mojibake).
		{"meta utf-16 read as UTF-8", []byte(`<meta charset="utf-16"><p>Hello</p>`), "text/html", true, `<meta charset="utf-16"><p>Hello</p>`, "utf-8", ""},
		{"meta utf-16le read as UTF-8", []byte(`<meta charset="UTF-16LE"><p>café</p>`), "text/html", true, `<meta charset="UTF-16LE"><p>café</p>`, "utf-8", ""},
		{"meta x-user-defined read as windows-1252", cp1252(`<meta charset="x-user-defined"><p>café</p>`), "text/html", true, `<meta charset="x-user-defined"><p>café</p>`, "windows-1252", ""},
		{"stale legacy meta on a UTF-8 page", []byte(`<meta charset="iso-8859-1"><p>café</p>`), "text/html", true, `<meta charset="iso-8859-1"><p>café</p>`, "utf-8", ""},
		{"undeclared legacy bytes", cp1252("Œuvre à 3 €"), "text/html", true, "Œuvre à 3 €", "windows-1252", "decoded as windows-1252"},
		{"invalid UTF-8 replaced", []byte("ok \xff\xfe then café"), "text/plain; charset=utf-8", false, "ok \uFFFD\uFFFD then café", "utf-8", "invalid UTF-8 replaced: 2 bytes"},
		{"damaged UTF-8 undeclared", []byte("café crème brûlée \xff"), "text/plain", false, "café crème brûlée \uFFFD", "utf-8", "invalid UTF-8 replaced"},
		{"invalid Shift_JIS counted", append(sjis("日本"), 0x81, 0x20), "text/plain; charset=shift_jis", false, "", "shift_jis", "replaced with U+FFFD"},
		{"unknown charset label", []byte("plain"), "text/plain; charset=x-klingon", false, "plain", "utf-8", `unknown charset "x-klingon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeToUTF8(tc.body, charsetParam(tc.contentType), tc.html)
			if !utf8.Valid(d.text) {
				t.Fatalf("result is not valid UTF-8: %q", d.text)
			}
			if tc.want != "" && string(d.text) != tc.want {
				t.Errorf("text: got %q; want %q", d.text, tc.want)
			}
			if d.charset != tc.wantCharset {
				t.Errorf("charset: got %q; want %q", d.charset, tc.wantCharset)
			}
			switch {
			case tc.wantNote == "" && len(d.notes) != 0:
				t.Errorf("notes: got %q; want none", d.notes)
			case tc.wantNote != "" && !strings.Contains(strings.Join(d.notes, "\n"), tc.wantNote):
				t.Errorf("notes: got %q; want one containing %q", d.notes, tc.wantNote)
			}
		})
	}
}

func charmapWindows1252() *charmap.Charmap { return charmap.Windows1252 }
