package content

import (
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

type goldenCase struct {
	name        string // golden file name, without extension
	body        func(t testing.TB) []byte
	contentType string
	pageURL     string
	opts        Options
	// check asserts what a model must (not) see, independent of the golden.
	check func(t *testing.T, d Document)
}

func readTestdata(name string) func(t testing.TB) []byte {
	return func(t testing.TB) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

var fenceLine = regexp.MustCompile("(?m)^\\s*```")

func goldenCases() []goldenCase {
	const newsURL = "https://news.example/2026/11/30/new-homes-survey"
	newsCommon := func(t *testing.T, d Document) {
		t.Helper()
		mustNotContain(t, d.Text, "var analytics", "analytics.push", "acceptCookies", "template text never shown",
			"share icon", "main.3f9a1c.css", "font-family", "javascript:", "pixel.example", "The Harbour Courier</title>")
		mustContain(t, d.Text, "https://news.example/documents/housing-survey-2024.pdf")
		mustNotContain(t, d.Text, "](/", "](method.html", "](../")
		if d.Title != "New homes up in four of six districts, survey finds" && !strings.HasPrefix(d.Title, "New homes up") {
			t.Errorf("title: got %q; want the article headline", d.Title)
		}
	}
	return []goldenCase{
		{
			name: "go_spec.full.md", body: readTestdata("go_spec.html"), contentType: "text/html; charset=utf-8",
			pageURL: "https://go.dev/ref/spec", opts: Options{FullPage: true},
			check: func(t *testing.T, d Document) {
				checkSpec(t, d)
			},
		},
		{
			name: "go_spec.md", body: readTestdata("go_spec.html"), contentType: "text/html",
			pageURL: "https://go.dev/ref/spec",
			check:   checkSpec,
		},
		{
			name: "go_mem.md", body: readTestdata("go_mem.html"), contentType: "text/html",
			pageURL: "https://go.dev/ref/mem",
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "## Introduction", "```", "[Go language specification](https://go.dev/ref/spec)", "sync/atomic")
				mustBalancedFences(t, d.Text)
			},
		},
		{
			name: "go_mem.txt", body: readTestdata("go_mem.html"), contentType: "text/html",
			pageURL: "https://go.dev/ref/mem", opts: Options{Format: Text},
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "Introduction\n\n", "var a string\n")
				mustNotContain(t, d.Text, "```", "](https", "](#", "<pre>", "<p>")
			},
		},
		{
			name: "news.md", body: readTestdata("news.html"), contentType: "text/html; charset=utf-8",
			pageURL: newsURL,
			check: func(t *testing.T, d Document) {
				newsCommon(t, d)
				mustContain(t, d.Text, "| District | 2023 | 2024 | Change |", "| Eastgate | 233 | 287 | +23.2% |",
					"## Completions by district", "- reporting homes let at social rents separately;")
				// Extraction drops navigation, sidebars, comments and footer.
				mustNotContain(t, d.Text, "Trending story number", "Cookie settings", "reader3", "Get the morning briefing", "Politics")
			},
		},
		{
			name: "news.full.md", body: readTestdata("news.html"), contentType: "text/html; charset=utf-8",
			pageURL: newsURL, opts: Options{FullPage: true},
			check: func(t *testing.T, d Document) {
				newsCommon(t, d)
				mustContain(t, d.Text, "| District | 2023 | 2024 | Change |", "[Politics](https://news.example/section/politics/)",
					"![New flats on the former Eastgate rail yard](https://news.example/2026/11/img/2026/eastgate-yard.jpg)",
					"[Reply](#reply-1)")
			},
		},
		{
			name: "news.txt", body: readTestdata("news.html"), contentType: "text/html; charset=utf-8",
			pageURL: newsURL, opts: Options{Format: Text},
			check: func(t *testing.T, d Document) {
				mustNotContain(t, d.Text, "var analytics", "<", "](", "**", "District20232024Change")
				mustContain(t, d.Text, "District | 2023 | 2024 | Change\n", "- reporting homes let at social rents separately;\n")
			},
		},
		{
			name: "shift_jis.md", body: shiftJISPage, contentType: "text/html", // charset from <meta>
			pageURL: "https://weather.example/tokyo/", opts: Options{FullPage: true},
			check: func(t *testing.T, d Document) {
				if d.Title != "東京の天気予報" {
					t.Errorf("title: got %q; want %q", d.Title, "東京の天気予報")
				}
				mustContain(t, d.Text, "# 東京の天気予報", "最高気温は十八度", "| 月 | 晴れ | 18 | 9 |",
					"[詳しい予報](https://weather.example/tokyo/%E8%A9%B3%E7%B4%B0.html)")
				if len(d.Notes) != 0 {
					t.Errorf("notes: got %q; want none for a correctly declared page", d.Notes)
				}
			},
		},
		{
			name: "windows-1252.md", body: windows1252Page, contentType: "text/html; charset=windows-1252",
			pageURL: "https://recettes.example/cafe",
			opts:    Options{FullPage: true},
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "# Le café crème", "65 °C", "3,50 €", "“Naïve” façon", "Œuvre déjà célèbre", "- Café : 18 g")
				mustNotContain(t, d.Text, "\uFFFD", "Ã©")
			},
		},
		{
			name: "windows-1252-undeclared.txt", body: windows1252Page, contentType: "text/html",
			pageURL: "https://recettes.example/cafe", opts: Options{Format: Text, FullPage: true},
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "Le café crème", "3,50 €")
				if !containsNote(d, "windows-1252") {
					t.Errorf("notes: got %q; want one saying the charset was guessed as windows-1252", d.Notes)
				}
			},
		},
		{
			name: "pdf.txt", body: func(t testing.TB) []byte {
				return pdftest.Minimal([]string{"Quarterly report", "Revenue grew 12 percent (see table 3)."}, []string{"Page two: outlook"})
			},
			contentType: "application/pdf", pageURL: "https://reports.example/q3.pdf",
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "Quarterly report", "Revenue grew 12 percent (see table 3).", "Page two: outlook")
				if d.Format != Text || d.MediaType != "application/pdf" {
					t.Errorf("got format %q media type %q; want text, application/pdf", d.Format, d.MediaType)
				}
			},
		},
		{
			name: "nested_divs.md", body: func(testing.TB) []byte { return nestedDivs(100_000) },
			contentType: "text/html", pageURL: "https://deep.example/",
			check: func(t *testing.T, d Document) {
				mustContain(t, d.Text, "before the pit", "at the bottom", "after the pit")
				if !containsNote(d, "nested too deeply") {
					t.Errorf("notes: got %q; want the flattening note", d.Notes)
				}
			},
		},
	}
}

func checkSpec(t *testing.T, d Document) {
	t.Helper()
	// The spec has 300+ <pre> blocks, most without <code>: each must be a
	// fenced block (Node's turndown loses every one of them).
	if n := len(fenceLine.FindAllString(d.Text, -1)); n < 2*300 {
		t.Errorf("fence lines: got %d; want at least 600", n)
	}
	mustBalancedFences(t, d.Text)
	mustContain(t, d.Text, "## Introduction", "### Comments\n", "```\nSyntax      = { Production } .",
		"[go.dev](https://go.dev/)", "[Go 1.18](#Go_1.18)", "[variant](https://en.wikipedia.org/wiki/Wirth_syntax_notation)")
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			u, err := url.Parse(tc.pageURL)
			if err != nil {
				t.Fatal(err)
			}
			opts.BaseURL = u
			start := time.Now()
			d, err := Convert(context.Background(), tc.body(t), tc.contentType, opts)
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			t.Logf("converted in %v: %d bytes, format %s, notes %q", time.Since(start), len(d.Text), d.Format, d.Notes)
			if tc.check != nil {
				tc.check(t, d)
			}
			path := filepath.Join("testdata", "golden", tc.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(d.Text+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./content -run Golden -update to create it)", err)
			}
			if got := d.Text + "\n"; got != string(want) {
				t.Errorf("%s differs from the golden file (refresh with -update if intended):\n%s", tc.name, firstDiff(got, string(want)))
			}
		})
	}
}

// firstDiff describes the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(only trailing differences)"
}

func mustContain(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

func mustNotContain(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if i := strings.Index(text, s); i >= 0 {
			lo, hi := max(0, i-40), min(len(text), i+len(s)+40)
			t.Errorf("output contains %q: …%s…", s, text[lo:hi])
		}
	}
}

func mustBalancedFences(t *testing.T, text string) {
	t.Helper()
	if n := len(fenceLine.FindAllString(text, -1)); n%2 != 0 {
		t.Errorf("fence lines: got %d; want an even number (every block closed)", n)
	}
}

func containsNote(d Document, sub string) bool {
	for _, n := range d.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}
