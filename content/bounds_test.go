package content

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
)

// boundsFull makes TestBoundsHostileHTML use bodies at the fetch tool's
// 5 MiB cap instead of 64 KiB ones (which keep the normal run, under
// -race too, short): go test ./content -run Bounds -v -bounds
var boundsFull = flag.Bool("bounds", false, "convert hostile pages at the full 5 MiB body cap")

// hostilePages are bodies of about maxBody bytes built to hurt an HTML
// pipeline: each must convert, keep its marker text and finish. Durations
// are logged, never asserted; `go test -run Bounds -v` shows them.
func hostilePages(t testing.TB, maxBody int) map[string][]byte {
	spec, err := os.ReadFile(filepath.Join("testdata", "go_spec.html"))
	if err != nil {
		t.Fatal(err)
	}
	fill := func(prefix, unit, suffix string) []byte {
		n := (maxBody - len(prefix) - len(suffix)) / len(unit)
		return []byte(prefix + strings.Repeat(unit, n) + suffix)
	}
	const marker = "<p>MARKER the end is here</p>"
	return map[string][]byte{
		// A realistic but huge page: the spec repeated up to the cap.
		"spec_repeated": bytes.Repeat(spec, max(1, maxBody/len(spec))),
		// 100,000 nested divs (deeper than x/net/html accepts).
		"nested_divs_100k": nestedDivs(100_000),
		// Just under the parser's 512 limit, with megabytes of text at the bottom.
		"nested_500_text": []byte(strings.Repeat("<div>", 500) + strings.Repeat("word ", max(0, maxBody-6000)/5) + marker + strings.Repeat("</div>", 500)),
		// Unclosed formatting elements (adoption agency, reconstruction).
		"unclosed_b":           fill("<p>", "<b>x", marker),
		"misnested_formatting": fill("<p>", "<b><i>x</b></i>", marker),
		// One enormous table.
		"table_rows": fill("<table>", "<tr><td>a</td><td>b|c</td></tr>", "</table>"+marker),
		// Nested lists and blockquotes just under the limit.
		"nested_lists": []byte(strings.Repeat("<ul><li>item", 250) + marker + strings.Repeat("</li></ul>", 250)),
		// A single 5 MiB word, and a page of only whitespace.
		"one_word":   fill("<p>", "a", "</p>"+marker),
		"whitespace": fill("<div>", " \n\t", "</div>"+marker),
		// Many tiny paragraphs and links.
		"links": fill("<div>", `<a href="/x?a=1&b=2">l</a> `, "</div>"+marker),
	}
}

func TestBoundsHostileHTML(t *testing.T) {
	size := 64 << 10
	if *boundsFull {
		size = 5 << 20
	}
	for name, body := range hostilePages(t, size) {
		for _, opts := range []Options{{Format: Markdown}, {Format: Markdown, FullPage: true}, {Format: Text}, {Format: Text, FullPage: true}} {
			t.Run(name+"/"+string(opts.Format)+map[bool]string{true: "-full"}[opts.FullPage], func(t *testing.T) {
				start := time.Now()
				d, err := Convert(context.Background(), body, "text/html", opts)
				if r, ok := refusal.As(err); ok && r.Code == refusal.ContentTooComplex && *boundsFull {
					// At the 5 MiB cap the work budget may refuse a page by
					// name (a table of 170,000 rows): the bound held.
					t.Logf("%d bytes in: refused %s after %v", len(body), r.Code, time.Since(start))
					return
				}
				if err != nil {
					t.Fatalf("Convert: %v", err)
				}
				t.Logf("%d bytes in, %d out, %v, notes %q", len(body), len(d.Text), time.Since(start), d.Notes)
				want := "MARKER"
				switch name {
				case "spec_repeated":
					want = "Introduction"
				case "nested_divs_100k":
					want = "at the bottom"
				}
				// Extraction may rightly drop the marker from a page of
				// links; the whole page must keep it.
				if opts.FullPage && !strings.Contains(d.Text, want) {
					t.Errorf("output lacks %q", want)
				}
				if strings.TrimSpace(d.Text) == "" {
					t.Errorf("empty output")
				}
			})
		}
	}
}
