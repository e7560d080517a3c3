package content

import (
	"bytes"
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	h2m "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// The package renders Markdown itself (see markdown.go) because the
// maintained converter, html-to-markdown v2, costs more than the whole
// time budget. That converter, with its table plugin, stays the reference:
// on the real pages both must agree on what a model relies on — the
// headings, the number of fenced code blocks, the table rows and the link
// targets.

func oracleConverter() *h2m.Converter {
	return h2m.NewConverter(h2m.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(commonmark.WithListEndComment(false)),
		table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve)),
	))
}

var (
	headingRE = regexp.MustCompile(`(?m)^#{1,6} .*$`)
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	rowRE     = regexp.MustCompile(`(?m)^\|.*\|$`)
	mdEscape  = strings.NewReplacer(`\`, "")
)

func TestMarkdownAgreesWithHTMLToMarkdown(t *testing.T) {
	for _, p := range benchPages {
		t.Run(p.name, func(t *testing.T) {
			body := readBenchPage(t, p.file)
			u, _ := url.Parse(p.url)
			ours, err := Convert(context.Background(), body, "text/html", Options{BaseURL: u, FullPage: true})
			if err != nil {
				t.Fatal(err)
			}
			root, err := html.Parse(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			info := prepare(context.Background(), root, u, outputBudget(len(body))) // same cleaning and link resolution
			// Decorative images (alt="") are left out on purpose.
			decorative := map[string]bool{}
			for n := info.body; n != nil; n = nextNode(n, info.body, true) {
				if alt, ok := attr(n, "alt"); ok && n.Data == "img" && strings.TrimSpace(alt) == "" {
					src, _ := attr(n, "src")
					decorative[src] = true
				}
			}
			ref, err := oracleConverter().ConvertNode(info.body)
			if err != nil {
				t.Fatal(err)
			}
			theirs := string(ref)

			norm := func(ss []string) []string {
				for i, s := range ss {
					ss[i] = strings.Join(strings.Fields(mdEscape.Replace(s)), " ")
				}
				return ss
			}
			if got, want := norm(headingRE.FindAllString(ours.Text, -1)), norm(headingRE.FindAllString(theirs, -1)); !slices.Equal(got, want) {
				t.Errorf("headings differ:\n ours: %q\ntheirs: %q", got, want)
			}
			if got, want := len(fenceLine.FindAllString(ours.Text, -1)), len(fenceLine.FindAllString(theirs, -1)); got != want {
				t.Errorf("fence lines: ours %d; theirs %d", got, want)
			}
			if got, want := len(rowRE.FindAllString(ours.Text, -1)), len(rowRE.FindAllString(theirs, -1)); got != want {
				t.Errorf("table rows: ours %d; theirs %d", got, want)
			}
			links := func(s string) []string {
				var out []string
				for _, m := range linkRE.FindAllStringSubmatch(s, -1) {
					// html-to-markdown re-encodes query strings; compare decoded.
					target, err := url.QueryUnescape(m[1])
					if err != nil {
						target = m[1]
					}
					if !decorative[target] {
						out = append(out, target)
					}
				}
				slices.Sort(out)
				return slices.Compact(out)
			}
			if got, want := links(ours.Text), links(theirs); !slices.Equal(got, want) {
				t.Errorf("link targets differ: ours %d, theirs %d\n only ours: %q\n only theirs: %q", len(got), len(want), minus(got, want), minus(want, got))
			}
		})
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}
