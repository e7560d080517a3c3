package content

import (
	"context"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/safetext"
)

// TestSafeToShow is issue 14.4's content half: a title or body holding
// terminal escape sequences (OSC 0 window title, OSC 52 clipboard write,
// CSI 2J clear screen), C1 controls and bidi overrides comes out of
// Markdown and text with each replaced visibly, in every body kind; raw
// keeps the bytes.
func TestSafeToShow(t *testing.T) {
	const evil = "a\U000E0041\x1b]0;pwned\x07b\x1b]52;c;ZXZpbA==\x07c\x1b[2Jd\u009b31me\u009dx\u202Ef\u2066g\x00h\ri"
	bodies := []struct{ ctype, body string }{
		{"text/html", "<title>T" + evil + "</title><h1>H" + evil + "</h1><p>P " + evil + " " + strings.Repeat("words of the article ", 30) + "</p><pre>" + evil + "</pre>"},
		{"text/plain", "plain " + evil},
		{"text/markdown", "# md " + evil},
		{"application/json", `{"k": "` + strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\x00", `\u0000`, "\r", `\r`).Replace(evil) + "\u202e\"}"},
	}
	for _, b := range bodies {
		for _, opts := range []Options{{}, {Format: Text}, {FullPage: true}} {
			d, err := Convert(context.Background(), []byte(b.body), b.ctype, opts)
			if err != nil {
				t.Fatalf("%s %+v: %v", b.ctype, opts, err)
			}
			for _, r := range d.Text {
				if r != '\n' && r != '\t' && safetext.IsUnsafe(r) {
					t.Errorf("%s %+v: text holds %U; want it replaced: %q", b.ctype, opts, r, d.Text)
					break
				}
			}
			for _, r := range d.Title {
				if safetext.IsUnsafe(r) {
					t.Errorf("%s %+v: title holds %U; want it replaced: %q", b.ctype, opts, r, d.Title)
					break
				}
			}
			if !strings.Contains(d.Text, "\uFFFD") {
				t.Errorf("%s %+v: no U+FFFD in %q; want each control replaced visibly", b.ctype, opts, d.Text)
			}
		}
	}
	d, err := Convert(context.Background(), []byte("line one\r\nline two\r\n"), "text/plain", Options{Format: Text})
	if err != nil || d.Text != "line one\nline two\n" {
		t.Errorf("CRLF text: got %q, %v; want its lines, LF-ended", d.Text, err)
	}
	d, err = Convert(context.Background(), []byte("raw "+evil), "text/plain", Options{Format: Raw})
	if err != nil || d.Text != "raw "+evil {
		t.Errorf("raw: got %q, %v; want the bytes as received", d.Text, err)
	}
}
