package content

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
)

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestConvertByMediaType(t *testing.T) {
	base, _ := url.Parse("https://site.example/dir/page")
	pngData := pngBytes(t, 64, 32)
	tests := []struct {
		name        string
		body        []byte
		contentType string
		opts        Options
		want        Document
	}{
		{
			name: "JSON pretty-printed", body: []byte(`{"b":[1,2],"a":{"x":"é"}}`), contentType: "application/json",
			want: Document{Text: "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": {\n    \"x\": \"é\"\n  }\n}", Format: Text, MediaType: "application/json"},
		},
		{
			name: "JSON suffix type", body: []byte(`[1]`), contentType: "application/problem+json",
			want: Document{Text: "[\n  1\n]", Format: Text, MediaType: "application/problem+json"},
		},
		{
			name: "invalid JSON shown as received", body: []byte(`{"a":`), contentType: "application/json",
			want: Document{Text: `{"a":`, Format: Text, MediaType: "application/json", Notes: []string{"body is not valid JSON: shown as received"}},
		},
		{
			name: "raw JSON untouched", body: []byte(`{"a":1}`), contentType: "application/json", opts: Options{Format: Raw},
			want: Document{Text: `{"a":1}`, Format: Raw, MediaType: "application/json"},
		},
		{
			name: "plain text passed through", body: []byte("line 1\n  line 2\n"), contentType: "text/plain; charset=utf-8",
			want: Document{Text: "line 1\n  line 2\n", Format: Text, MediaType: "text/plain"},
		},
		{
			name: "markdown passed through", body: []byte("# Title\n\n*x*"), contentType: "text/markdown",
			want: Document{Text: "# Title\n\n*x*", Format: Markdown, MediaType: "text/markdown"},
		},
		{
			name: "image described", body: pngData, contentType: "image/png",
			want: Document{Text: "[binary content: image/png, 64×32 pixels, " + formatSize(len(pngData)) + "]", Format: Text, MediaType: "image/png", Notes: []string{"binary content not shown"}},
		},
		{
			name: "raw of an image is a description, not an error", body: pngData, contentType: "image/png", opts: Options{Format: Raw},
			want: Document{Text: "[binary content: image/png, 64×32 pixels, " + formatSize(len(pngData)) + "]", Format: Text, MediaType: "image/png", Notes: []string{"binary content not shown"}},
		},
		{
			name: "octet-stream binary", body: []byte{0, 1, 2, 3, 0xff, 0xfe, 0}, contentType: "application/octet-stream",
			want: Document{Text: "[binary content: application/octet-stream, 7 bytes]", Format: Text, MediaType: "application/octet-stream", Notes: []string{"binary content not shown"}},
		},
		{
			name: "octet-stream that is text", body: []byte("just some text\n"), contentType: "application/octet-stream",
			want: Document{Text: "just some text\n", Format: Text, MediaType: "application/octet-stream"},
		},
		{
			name: "no content type: sniffed HTML", body: []byte("<!DOCTYPE html><title>T</title><h1>Hi</h1><p>x</p>"), contentType: "",
			opts: Options{FullPage: true},
			want: Document{Text: "# Hi\n\nx", Format: Markdown, MediaType: "text/html", Title: "T"},
		},
		{
			name: "raw HTML as received, title found", body: []byte("<html><head><title> A  page </title></head><body><script>var x</script></body></html>"), contentType: "text/html",
			opts: Options{Format: Raw},
			want: Document{Text: "<html><head><title> A  page </title></head><body><script>var x</script></body></html>", Format: Raw, MediaType: "text/html", Title: "A page"},
		},
		{
			name: "raw decodes the charset", body: mustEncode(t, charmapWindows1252(), "café"), contentType: "text/plain; charset=windows-1252", opts: Options{Format: Raw},
			want: Document{Text: "café", Format: Raw, MediaType: "text/plain"},
		},
		{
			name: "broken PDF described", body: []byte("%PDF-1.4\nnot really a pdf"), contentType: "application/pdf",
			want: Document{Text: "[binary content: application/pdf, 25 bytes]", Format: Text, MediaType: "application/pdf", Notes: []string{"PDF text could not be extracted: binary content not shown"}},
		},
		{
			name: "raw PDF described", body: pdftest.Minimal([]string{"x"}), contentType: "application/pdf", opts: Options{Format: Raw},
			want: Document{Text: "[binary content: application/pdf, " + formatSize(len(pdftest.Minimal([]string{"x"}))) + "]", Format: Text, MediaType: "application/pdf",
				Notes: []string{"binary content not shown: raw format is for text types; ask for text to read the PDF's text"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.BaseURL = base
			got, err := Convert(context.Background(), tc.body, tc.contentType, tc.opts)
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Convert mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Convert(ctx, []byte("<p>x</p>"), "text/html", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: got %v; want context.Canceled", err)
	}
	if _, err := Convert(context.Background(), []byte("x"), "text/plain", Options{Format: "pdf"}); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("unknown format: got %v; want ErrUnsupportedFormat", err)
	}
}

// TestHTMLConversion pins the behaviours the issue calls out, on small
// inputs where the expected Markdown and text can be written out whole.
func TestHTMLConversion(t *testing.T) {
	base, _ := url.Parse("https://site.example/docs/guide/intro.html")
	tests := []struct {
		name     string
		html     string
		wantMD   string
		wantText string
	}{
		{
			name:     "table cells never run together",
			html:     `<table><tr><th>District</th><th>2023</th><th>2024</th><th>Change</th></tr><tr><td>North</td><td>1</td><td>2</td><td>+1</td></tr></table>`,
			wantMD:   "| District | 2023 | 2024 | Change |\n|---|---|---|---|\n| North | 1 | 2 | +1 |",
			wantText: "District | 2023 | 2024 | Change\nNorth | 1 | 2 | +1",
		},
		{
			name:     "pipes and breaks inside cells",
			html:     `<table><tr><td>a|b</td><td>line<br>two</td><td colspan="2">wide</td></tr><tr><td>x</td></tr></table>`,
			wantMD:   "| a\\|b | line two | wide | |\n|---|---|---|---|\n| x | | | |",
			wantText: "a|b | line two | wide\nx",
		},
		{
			name:     "pipes in code and links inside cells",
			html:     `<table><tr><th>op</th><th>link</th></tr><tr><td><code>a|b</code></td><td><a href="/q?x=a|b">q</a></td></tr></table>`,
			wantMD:   "| op | link |\n|---|---|\n| `a\\|b` | [q](https://site.example/q?x=a%7Cb) |",
			wantText: "op | link\na|b | q",
		},
		{
			// GFM splits a row at every unescaped "|", an image's alt too.
			name:     "pipe in an image's alt inside a cell",
			html:     `<table><tr><th>h</th><th>g</th></tr><tr><td><img src="/x.png" alt="a|b"></td><td>z</td></tr></table>`,
			wantMD:   "| h | g |\n|---|---|\n| ![a\\|b](https://site.example/x.png) | z |",
			wantText: "h | g\na|b | z",
		},
		{
			name:     "bare pre becomes a fenced block",
			html:     "<p>Example:</p><pre>x := 1\n\nif x > 0 {\n\tprint(x)\n}\n</pre>",
			wantMD:   "Example:\n\n```\nx := 1\n\nif x > 0 {\n\tprint(x)\n}\n```",
			wantText: "Example:\n\nx := 1\n\nif x > 0 {\n\tprint(x)\n}",
		},
		{
			name:     "pre with code, language and backticks inside",
			html:     "<pre><code class=\"language-go\">s := `raw`\nt := \"```\"</code></pre>",
			wantMD:   "````go\ns := `raw`\nt := \"```\"\n````",
			wantText: "s := `raw`\nt := \"```\"",
		},
		{
			name:     "pre with br and line divs",
			html:     `<pre><span>a := 1</span><br><span>b := 2</span></pre><pre><div class="line">x()</div><div class="line">y()</div></pre>`,
			wantMD:   "```\na := 1\nb := 2\n```\n\n```\nx()\ny()\n```",
			wantText: "a := 1\nb := 2\n\nx()\ny()",
		},
		{
			name:     "links made absolute, fragments kept, javascript dropped",
			html:     `<p><a href="../api.html?q=a b">API</a> <a href="/">home</a> <a href="#top">top</a> <a href="javascript:alert(1)">click</a> <a href="https://other.example/x">x</a> <a href="/icon"><img src="/i.png" alt=""></a></p>`,
			wantMD:   "[API](https://site.example/docs/api.html?q=a%20b) [home](https://site.example/) [top](#top) click [x](https://other.example/x)",
			wantText: "API home top click x",
		},
		{
			// A browser removes tab and newline anywhere in a URL and C0
			// controls and spaces at either end, so each of these is a
			// javascript: link; escapeURL removed the tab and newline after
			// the scheme check, writing [tab](javascript:alert%281%29).
			name:     "javascript links hidden by tab, newline, controls",
			html:     "<p><a href=\"java&#x09;script:alert(1)\">tab</a> <a href=\"java\nscript:alert(2)\">nl</a> <a href=\"&#x01; javascript:alert(3)\">c0</a> <a href=\"vb&#x0d;script:x\">vb</a></p>",
			wantMD:   "tab nl c0 vb",
			wantText: "tab nl c0 vb",
		},
		{
			// data: links are inline documents, never a page to visit;
			// data: images are dropped however the scheme is hidden.
			name:     "data links and hidden data images dropped",
			html:     "<p><a href=\"data:text/html,<script>alert(1)</script>\">d</a> <a href=\" DaTa:,x\">e</a> <img src=\"da&#x0a;ta:image/png;base64,AAAA\" alt=\"pic\"></p>",
			wantMD:   "d e",
			wantText: "d e pic",
		},
		{
			// A backslash before the closing parenthesis would escape it:
			// the link would run on into the text after it. (A URL that
			// does not parse is written as it is.)
			name:     "backslash at the end of a link destination",
			html:     `<p>see <a href="http://[x\">this</a> (then) more</p>`,
			wantMD:   "see [this](http://[x%5C) (then) more",
			wantText: "see this (then) more",
		},
		{
			name:     "headings, emphasis, code, images",
			html:     `<h2>Intro <em>now</em></h2><p>Use <code>go test</code> <strong>often</strong>, <del>never</del> <i> rarely </i>.</p><p><img src="pic.png" alt="A [pic]"></p>`,
			wantMD:   "## Intro *now*\n\nUse `go test` **often**, ~~never~~ *rarely* .\n\n![A \\[pic\\]](https://site.example/docs/guide/pic.png)",
			wantText: "Intro now\n\nUse go test often, never rarely .\n\nA [pic]",
		},
		{
			name:     "nested lists",
			html:     `<ul><li>one<ul><li>one.a</li><li>one.b</li></ul></li><li>two</li></ul><ol start="3"><li>three</li><li><p>four</p></li></ol>`,
			wantMD:   "- one\n  - one.a\n  - one.b\n- two\n\n3. three\n4. four",
			wantText: "- one\n  - one.a\n  - one.b\n- two\n\n3. three\n4. four",
		},
		{
			name:     "blockquote",
			html:     `<blockquote><p>first</p><p>second</p></blockquote><p>after</p>`,
			wantMD:   "> first\n>\n> second\n\nafter",
			wantText: "first\n\nsecond\n\nafter",
		},
		{
			name:     "markdown characters in text are escaped",
			html:     `<p># not a heading</p><p>1. not a list</p><p>a*b*c [x] snake_case _under_ &lt;notatag&gt;</p>`,
			wantMD:   "\\# not a heading\n\n1\\. not a list\n\na\\*b\\*c \\[x\\] snake_case \\_under\\_ \\<notatag>",
			wantText: "# not a heading\n\n1. not a list\n\na*b*c [x] snake_case _under_ <notatag>",
		},
		{
			name:     "script, style, title, template, svg, hidden never leak",
			html:     `<html><head><title>T</title><style>p{color:red}</style></head><body><script>var analytics=1</script><p>visible</p><noscript>enable js</noscript><template>tpl</template><svg><title>icon</title><text>svgtext</text></svg><div hidden>hid</div><p style="display: none">gone</p><span aria-hidden="true">deco</span><title>late title</title><iframe src="/x">frame</iframe><button>Click</button></body></html>`,
			wantMD:   "visible",
			wantText: "visible",
		},
	}
	for _, tc := range tests {
		for _, f := range []Format{Markdown, Text} {
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				d, err := Convert(context.Background(), []byte(tc.html), "text/html; charset=utf-8", Options{Format: f, BaseURL: base, FullPage: true})
				if err != nil {
					t.Fatalf("Convert: %v", err)
				}
				want := tc.wantMD
				if f == Text {
					want = tc.wantText
				}
				if d.Text != want {
					t.Errorf("got:\n%s\nwant:\n%s", d.Text, want)
				}
			})
		}
	}
}

func TestExtractionFallsBackToWholePage(t *testing.T) {
	// Too little for readability to call an article: the whole page is used.
	page := `<html><body><nav><a href="/a">A</a></nav><div><p>Just one short line.</p></div><footer>Footer text here</footer></body></html>`
	d, err := Convert(context.Background(), []byte(page), "text/html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, d.Text, "Just one short line.", "Footer text here")
}

func TestBaseHref(t *testing.T) {
	page := `<html><head><base href="/root/sub/"></head><body><p><a href="page">p</a><img src="i.png" alt="i"></p></body></html>`
	base, _ := url.Parse("https://site.example/some/where")
	d, err := Convert(context.Background(), []byte(page), "text/html", Options{BaseURL: base, FullPage: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[p](https://site.example/root/sub/page)![i](https://site.example/root/sub/i.png)"; d.Text != want {
		t.Errorf("got %q; want %q", d.Text, want)
	}
}

// FuzzConvert feeds arbitrary bodies and content types through every
// format: Convert must never panic or fail, and its text must be valid UTF-8.
func FuzzConvert(f *testing.F) {
	// Seeds: HTML fragments with tables, lists, pre and broken nesting;
	// legacy bytes; JSON; a PDF header; binary; odd content types.
	f.Add([]byte("<table><tr><td>a<td>b</table><ul><li>x<ol><li>y</ul><pre>z</pre>"), "text/html", uint8(0))
	f.Add([]byte("<b><i>x</b></i><a href='javascript:1'>y</a><p>\xff\xfe</p>"), "text/html; charset=utf-8", uint8(1))
	f.Add([]byte("<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>"), "text/html", uint8(2))
	f.Add([]byte(`{"a": [1, {"b": null}]}`), "application/json", uint8(0))
	f.Add([]byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer<</Root 1 0 R>>"), "application/pdf", uint8(1))
	f.Add([]byte{0x89, 'P', 'N', 'G', 0, 0}, "", uint8(0))
	f.Add([]byte("plain"), "text/plain; charset=bogus", uint8(2))
	f.Add([]byte("<div><div><div>"), ";;;", uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, contentType string, mode uint8) {
		opts := Options{Format: []Format{Markdown, Text, Raw}[mode%3], FullPage: mode&4 != 0}
		d, err := Convert(context.Background(), body, contentType, opts)
		if err != nil {
			t.Fatalf("Convert: %v", err)
		}
		if !utf8.ValidString(d.Text) {
			t.Fatalf("text is not valid UTF-8")
		}
		if !opts.Format.valid() || !d.Format.valid() {
			t.Fatalf("format %q", d.Format)
		}
		if d.Format == Markdown && strings.Contains(d.Text, "<script") && !bytes.Contains(body, []byte("&lt;script")) && d.MediaType == "text/html" {
			t.Fatalf("script markup leaked into markdown")
		}
	})
}

func TestOddHTMLDocuments(t *testing.T) {
	tests := []struct {
		name, html, contentType, want string
	}{
		{"empty body", "", "text/html", ""},
		{"only a head", "<html><head><title>T</title></head></html>", "text/html", ""},
		{"frameset", `<html><head><title>F</title></head><frameset><frame src="a.html"><noframes><p>No frames here</p></noframes></frameset></html>`, "text/html", ""},
		{"xhtml", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>x<br/>y</p></body></html>`, "application/xhtml+xml", "x\ny"},
		{"fragment without html or body", "<p>just a paragraph</p>", "text/html", "just a paragraph"},
	}
	for _, tc := range tests {
		for _, opts := range []Options{{}, {FullPage: true}, {Format: Text}} {
			t.Run(tc.name, func(t *testing.T) {
				d, err := Convert(context.Background(), []byte(tc.html), tc.contentType, opts)
				if err != nil {
					t.Fatal(err)
				}
				if d.Text != tc.want {
					t.Errorf("got %q; want %q", d.Text, tc.want)
				}
			})
		}
	}
}
