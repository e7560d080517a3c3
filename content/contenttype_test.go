package content

import (
	"fmt"
	"mime"
	"strings"
	"testing"

	htmlcharset "golang.org/x/net/html/charset"
)

func TestParseContentType(t *testing.T) {
	for _, tc := range []struct {
		in, mt, charset string
		ok, plain       bool
	}{
		{"text/html", "text/html", "", true, true},
		{"text/html; charset=utf-8", "text/html", "utf-8", true, true},
		{" text/plain ;charset=ISO-8859-1 ", "text/plain", "ISO-8859-1", true, true},
		{"Text/HTML; Charset=UTF-8", "text/html", "UTF-8", true, false},
		{`text/html; charset="utf-8"`, "text/html", "utf-8", true, false},
		{"text/html; charset = utf-8", "text/html", "utf-8", true, false},
		{"text/html; q=1; charset=utf-8", "text/html", "utf-8", true, false},
		{"text/html;", "text/html", "", true, false},
		{"text", "text", "", true, false},
		{"text/", "", "", false, false},
		{"/html", "", "", false, false},
		{"text/html; charset=", "", "", false, false},
		{"", "", "", false, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			mt, cs, ok := parseContentType(tc.in)
			if mt != tc.mt || cs != tc.charset || ok != tc.ok {
				t.Errorf("parseContentType(%q) = %q, %q, %v; want %q, %q, %v", tc.in, mt, cs, ok, tc.mt, tc.charset, tc.ok)
			}
			if _, _, plain := plainContentType(tc.in); plain != tc.plain {
				t.Errorf("plainContentType(%q) ok %v; want %v", tc.in, plain, tc.plain)
			}
		})
	}
}

// TestParseContentTypeAllocs: the usual Content-Type is read without
// allocating (mime.ParseMediaType builds a map per call).
func TestParseContentTypeAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { parseContentType("text/html; charset=utf-8") }); n != 0 {
		t.Errorf("%v allocations per call; want 0", n)
	}
}

// FuzzParseContentType holds the fast path to mime.ParseMediaType: where
// plainContentType answers, mime.ParseMediaType gives the same media type
// and charset, without error.
func FuzzParseContentType(f *testing.F) {
	for _, seed := range []string{
		"text/html", "text/html; charset=utf-8", " a/b ;\tcharset=x\t", "text/html; charset=utf-8; x=y",
		"text/html;charset=utf-8 ;", "TEXT/html", "text/html; CHARSET=Utf-8", "a/b;charset=\x85",
		"text/html\v; charset=utf-8", "text/html; charset=utf-8\r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		mt, cs, ok := plainContentType(v)
		if !ok {
			return
		}
		wantMT, params, err := mime.ParseMediaType(v)
		if err != nil {
			t.Fatalf("plainContentType(%q) = %q, %q; mime.ParseMediaType fails: %v", v, mt, cs, err)
		}
		if mt != wantMT || cs != strings.TrimSpace(params["charset"]) {
			t.Fatalf("plainContentType(%q) = %q, %q; mime.ParseMediaType %q, %q", v, mt, cs, wantMT, params["charset"])
		}
	})
}

// TestLookupCharsetUTF8: the UTF-8 shortcut answers as htmlcharset.Lookup.
func TestLookupCharsetUTF8(t *testing.T) {
	for _, label := range []string{"utf-8", "UTF-8", "Utf8", "utf8"} {
		enc, name := lookupCharset(label)
		wantEnc, wantName := htmlcharset.Lookup(label)
		if enc == nil || fmt.Sprint(enc) != fmt.Sprint(wantEnc) || name != wantName {
			t.Errorf("lookupCharset(%q) = %v, %q; htmlcharset.Lookup %v, %q", label, enc, name, wantEnc, wantName)
		}
	}
}
