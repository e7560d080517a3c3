package content

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRealPagesReport compares extraction with html-to-markdown v2 (the
// whole page, the maintained converter) on documentation installed from
// Debian packages and on go-readability's test pages, and writes a
// Markdown report. It reads files outside the repository, so it runs only
// when asked:
//
//	apt-get install python3-doc postgresql-doc debian-reference-en
//	OCFETCH_REALPAGES=/tmp/report.md go test ./content -run RealPagesReport -v
//
// The figures are recorded in docs/EXTRACTION.md; nothing is asserted
// beyond the conversions succeeding (the judgement is the report's).
func TestRealPagesReport(t *testing.T) {
	out := os.Getenv("OCFETCH_REALPAGES")
	if out == "" {
		t.Skip("set OCFETCH_REALPAGES=report.md to run (needs Debian doc packages)")
	}
	var pages []string
	for _, g := range []string{
		"/usr/share/doc/python3-doc/html/library/os.html",
		"/usr/share/doc/python3-doc/html/library/json.html",
		"/usr/share/doc/python3-doc/html/tutorial/classes.html",
		"/usr/share/doc/python3-doc/html/reference/datamodel.html",
		"/usr/share/doc/postgresql-doc-*/html/sql-select.html",
		"/usr/share/doc/postgresql-doc-*/html/datatype-numeric.html",
		"/usr/share/doc/postgresql-doc-*/html/functions-json.html",
		"/usr/share/doc/postgresql-doc-*/html/tutorial-join.html",
		"/usr/share/debian-reference/ch*.en.html",
	} {
		m, _ := filepath.Glob(g)
		pages = append(pages, m...)
	}
	var b strings.Builder
	b.WriteString("| page | KB | html-to-markdown runes | extracted runes (share) | whole page runes | code blocks with language: ours / h2m | table rows: ours / h2m | images: ours / h2m | notes |\n|---|---|---|---|---|---|---|---|---|\n")
	conv := oracleConverter()
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse("https://docs.example/" + filepath.Base(p))
		ext, err := Convert(context.Background(), body, "text/html", Options{BaseURL: u})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		full, err := Convert(context.Background(), body, "text/html", Options{BaseURL: u, FullPage: true})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ref, err := conv.ConvertString(string(body))
		if err != nil {
			t.Fatalf("%s: html-to-markdown: %v", p, err)
		}
		name := strings.TrimPrefix(p, "/usr/share/")
		e, f, r := nonSpaceRunes(ext.Text), nonSpaceRunes(full.Text), nonSpaceRunes(ref)
		fmt.Fprintf(&b, "| %s | %d | %d | %d (%.0f %%) | %d | %d / %d | %d / %d | %d / %d | %s |\n",
			name, len(body)>>10, r, e, 100*float64(e)/float64(max(r, 1)), f,
			len(langFenceRE.FindAllString(ext.Text, -1)), len(langFenceRE.FindAllString(ref, -1)),
			len(anyRowRE.FindAllString(ext.Text, -1)), len(anyRowRE.FindAllString(ref, -1)),
			len(imageRE.FindAllString(ext.Text, -1)), len(imageRE.FindAllString(ref, -1)),
			strings.Join(slices.DeleteFunc(slices.Clone(ext.Notes), func(s string) bool { return strings.HasPrefix(s, "invalid UTF-8") }), "; "))
	}

	// go-readability's test pages: our article against readability's own
	// expected article (its text runes), and how often we fell back.
	dir := readabilityTestPages()
	if dir != "" {
		srcs, _ := filepath.Glob(filepath.Join(dir, "*", "source.html"))
		var n, fellBack, within int
		var sumShare float64
		for _, src := range srcs {
			body, err := os.ReadFile(src)
			if err != nil {
				continue
			}
			want, err := os.ReadFile(filepath.Join(filepath.Dir(src), "expected.html"))
			if err != nil {
				continue
			}
			ext, err := Convert(context.Background(), body, "text/html", Options{})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			exp, _ := Convert(context.Background(), want, "text/html", Options{FullPage: true})
			e, x := nonSpaceRunes(ext.Text), nonSpaceRunes(exp.Text)
			if x == 0 {
				continue
			}
			n++
			share := float64(e) / float64(x)
			sumShare += min(share, 3)
			if share >= 0.9 && share <= 1.5 {
				within++
			}
			full, _ := Convert(context.Background(), body, "text/html", Options{FullPage: true})
			if nonSpaceRunes(full.Text) == e {
				fellBack++
			}
		}
		fmt.Fprintf(&b, "\ngo-readability test pages: %d pages; our article holds 90–150 %% of readability's expected article text on %d; mean share %.2f (capped at 3); whole page used (fallback or no article) on %d.\n",
			n, within, sumShare/float64(max(n, 1)), fellBack)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}

var (
	langFenceRE = regexp.MustCompile("(?m)^\\s*```+[A-Za-z0-9_+.-]+$")
	imageRE     = regexp.MustCompile(`!\[[^\]]*\]\(`)
	anyRowRE    = regexp.MustCompile(`(?m)^[ >]*\|.*\|$`) // table rows, indented ones too
)

// readabilityTestPages is go-readability's test-pages directory in the
// module cache, or "".
func readabilityTestPages() string {
	m, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), "go/pkg/mod/codeberg.org/readeck/go-readability/v2@*/test-pages"))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}
