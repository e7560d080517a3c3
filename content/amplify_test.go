package content

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestOutputBounded converts small bodies built so that a writer without
// bounds turns them into hundreds of megabytes (found in review: 38 KB of
// JSON became 342 MB, 27 KB of table 120 MB, 80 KB of links 300 MB). Each
// must stay within outputBudget of its body and say what it left out.
func TestOutputBounded(t *testing.T) {
	longBase, err := url.Parse("https://example.com/" + strings.Repeat("p", 60000) + "/")
	if err != nil {
		t.Fatal(err)
	}
	midBase, err := url.Parse("https://example.com/" + strings.Repeat("q", 2000) + "/")
	if err != nil {
		t.Fatal(err)
	}
	links := "<p>" + strings.Repeat("<a href=?>x</a> ", 5000) + "</p>"
	tests := []struct {
		name, ctype string
		body        string
		opts        Options
		note        string // a substring of one of Document.Notes
		// keep is a substring of the output: what was within the bounds
		// is still shown.
		keep string
	}{
		{
			name: "JSON nested 9000 deep", ctype: "application/json",
			body: strings.Repeat("[", 9000) + strings.Repeat("1,", 10000) + "1" + strings.Repeat("]", 9000),
			note: "JSON nested deeper than 64 levels: shown as received", keep: "[[[1,1,",
		},
		{
			// 60 levels (under the depth cap) of 100,000 members: 12 MB
			// of indentation from 200 KB.
			name: "JSON indentation over budget", ctype: "application/json",
			body: strings.Repeat("[", 60) + strings.Repeat("1,", 100000) + "1" + strings.Repeat("]", 60),
			note: "JSON shown as received: indented it would pass", keep: "1,1,1",
		},
		{
			name: "table: one row of 200 colspan=100 cells, 3000 narrow rows", ctype: "text/html",
			body: "<table><tr>" + strings.Repeat("<td colspan=100>h", 200) + "</tr>" + strings.Repeat("<tr><td>c", 3000) + "</table>",
			note: "table columns after the 64th not shown", keep: "| h |",
		},
		{
			name: "table: 64 columns then 30000 one-cell rows", ctype: "text/html",
			body: "<table><tr>" + strings.Repeat("<td>h", 64) + "</tr>" + strings.Repeat("<tr><td>c", 30000) + "</table><p>after the table</p>",
			keep: "after the table",
		},
		{
			name: "long final URL in every relative link", ctype: "text/html",
			body: links, opts: Options{BaseURL: longBase},
			note: "5000 links left as written", keep: "[x](?)",
		},
		{
			name: "long final URL, text format", ctype: "text/html",
			body: links, opts: Options{Format: Text, BaseURL: longBase},
			note: "5000 links left as written", keep: "x x x",
		},
		{
			name: "long <base href>", ctype: "text/html",
			body: `<head><base href="https://example.com/` + strings.Repeat("b", 60000) + `/"></head>` + links,
			opts: Options{BaseURL: &url.URL{Scheme: "https", Host: "site.example", Path: "/"}},
			note: "<base href> longer than 2048 bytes ignored", keep: "[x](https://site.example/?)",
		},
		{
			// Each link made absolute stays under maxLinkLen but grows
			// 2 KB: the links together use up the budget.
			name: "2 KB final URL in 20000 links", ctype: "text/html",
			body: "<p>" + strings.Repeat("<a href=?>x</a> ", 20000) + "</p>", opts: Options{BaseURL: midBase},
			note: "links left as written", keep: "qqq/?)",
		},
		{
			name: "lists nested 250 deep, 20000 lines", ctype: "text/html",
			body: strings.Repeat("<ul><li>", 250) + strings.Repeat("a<br>", 20000) + strings.Repeat("</li></ul>", 250),
			note: "content cut at", keep: "- a",
		},
		{
			name: "lists nested 250 deep, text format", ctype: "text/html",
			body: strings.Repeat("<ul><li>", 250) + strings.Repeat("a<br>", 20000) + strings.Repeat("</li></ul>", 250),
			opts: Options{Format: Text},
			note: "lists and quotes nested more than 64 columns deep", keep: "- a",
		},
		{
			name: "blockquotes nested 250 deep", ctype: "text/html",
			body: strings.Repeat("<blockquote>", 250) + strings.Repeat("a<br>", 20000) + strings.Repeat("</blockquote>", 250),
			note: "lists and quotes nested more than 64 columns deep", keep: "> > a",
		},
		{
			name: "pre in nested quotes", ctype: "text/html",
			body: strings.Repeat("<blockquote>", 250) + "<pre>" + strings.Repeat("x\n", 50000) + "</pre>" + strings.Repeat("</blockquote>", 250),
			note: "content cut at", keep: "> > x",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			d, err := Convert(context.Background(), body, tt.ctype, tt.opts)
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if bound := outputBudget(len(body)); len(d.Text) > bound {
				t.Errorf("got %d bytes of output from %d; want at most %d", len(d.Text), len(body), bound)
			}
			if !utf8.ValidString(d.Text) {
				t.Errorf("output is not valid UTF-8")
			}
			if tt.note != "" && !strings.Contains(strings.Join(d.Notes, "\n"), tt.note) {
				t.Errorf("notes: got %q; want one containing %q", d.Notes, tt.note)
			}
			if !strings.Contains(d.Text, tt.keep) {
				t.Errorf("output lacks %q; starts %q", tt.keep, d.Text[:min(200, len(d.Text))])
			}
		})
	}
}

func TestOutputBudget(t *testing.T) {
	tests := []struct{ n, want int }{
		{0, 64 << 10},
		{1000, 64<<10 + 8000},
		{1 << 20, 64<<10 + 8<<20},
		{5 << 20, 16 << 20},
	}
	for _, tt := range tests {
		if got := outputBudget(tt.n); got != tt.want {
			t.Errorf("outputBudget(%d): got %d; want %d", tt.n, got, tt.want)
		}
	}
}

func TestOutBufCutsAtRuneBoundary(t *testing.T) {
	tests := []struct {
		limit  int
		writes []string
		want   string
	}{
		{limit: 5, writes: []string{"abc", "déf"}, want: "abcd"}, // é would straddle the limit
		{limit: 4, writes: []string{"ab", "€"}, want: "ab"},      // 3-byte rune, 2 bytes left
		{limit: 3, writes: []string{"abc", "d", "e"}, want: "abc"},
		{limit: 10, writes: []string{"abc"}, want: "abc"},
		{limit: 0, writes: []string{"é"}, want: ""},
	}
	for _, tt := range tests {
		o := newOutBuf(tt.limit)
		for _, w := range tt.writes {
			o.WriteString(w)
		}
		if got := string(o.finish()); got != tt.want {
			t.Errorf("limit %d, writes %q: got %q; want %q", tt.limit, tt.writes, got, tt.want)
		}
		if wantCut := len(strings.Join(tt.writes, "")) > tt.limit; o.cut != wantCut {
			t.Errorf("limit %d, writes %q: cut %v; want %v", tt.limit, tt.writes, o.cut, wantCut)
		}
		if o.full() != (len(tt.want) >= tt.limit || o.cut) {
			t.Errorf("limit %d, writes %q: full %v after finish", tt.limit, tt.writes, o.full())
		}
		o.release()
	}
}

// countingCtx reports Canceled from its after-th Err call on, and counts
// the calls: a deterministic stand-in for a deadline that passes in the
// middle of a conversion.
type countingCtx struct {
	context.Context
	calls atomic.Int64
	after int64 // 0: never
}

func (c *countingCtx) Err() error {
	if n := c.calls.Add(1); c.after > 0 && n >= c.after {
		return context.Canceled
	}
	return nil
}

// TestConvertCancelledMidway checks that the long steps look at ctx often
// (once per ctxCheckEvery nodes in the tree walks, per 64 KiB of JSON) and
// that a ctx done at any of those checks ends Convert with its error.
func TestConvertCancelledMidway(t *testing.T) {
	item := "<li><p>para <a href=x>link</a> <b>bold</b></p></li>"
	page := []byte("<ul>" + strings.Repeat(item, 20000) + "</ul>")
	jsonBody := []byte("[" + strings.Repeat(`{"k":"v"},`, 50000) + "1]")
	base, _ := url.Parse("https://site.example/a/")
	tests := []struct {
		name, ctype string
		body        []byte
		opts        Options
		minChecks   int64
	}{
		{"markdown", "text/html", page, Options{BaseURL: base, FullPage: true}, 2 * int64(20000*7/ctxCheckEvery)},
		{"text", "text/html", page, Options{Format: Text, BaseURL: base, FullPage: true}, 2 * int64(20000*7/ctxCheckEvery)},
		{"JSON", "application/json", jsonBody, Options{}, int64(len(jsonBody) / (64 << 10))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			free := &countingCtx{Context: context.Background()}
			if _, err := Convert(free, tt.body, tt.ctype, tt.opts); err != nil {
				t.Fatalf("Convert: %v", err)
			}
			total := free.calls.Load()
			if total < tt.minChecks {
				t.Fatalf("ctx checked %d times; want at least %d (prepare and the writer walk %d nodes)", total, tt.minChecks, 20000*7)
			}
			for _, after := range []int64{1, 2, total / 3, total / 2, total - 1, total} {
				t.Run(fmt.Sprint("cancelled at check ", after), func(t *testing.T) {
					ctx := &countingCtx{Context: context.Background(), after: max(after, 1)}
					d, err := Convert(ctx, tt.body, tt.ctype, tt.opts)
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("got err %v, %d bytes of text; want context.Canceled", err, len(d.Text))
					}
					if extra := ctx.calls.Load() - max(after, 1); extra > 2 {
						t.Errorf("ctx checked %d more times after it was done; want Convert to return at once", extra)
					}
				})
			}
		})
	}
}

// TestHasText checks the memoized test against what it replaced
// (strings.TrimSpace(textOf(n)) != ""), which cost depth × text on nested
// inline elements.
func TestHasText(t *testing.T) {
	for _, frag := range []string{
		"<b></b>", "<b> \n\t</b>", "<b>\u00a0\u2003</b>", "<b>x</b>", "<b><i> </i><i>y</i></b>",
		"<b><img src=a></b>", "<b><i><u> </u></i> z</b>", "<b>\u00a0a</b>",
		"<b><i><!-- c --></i>" + strings.Repeat(" ", 300) + "</b>", "<b>" + strings.Repeat(" ", 300) + "y</b>",
	} {
		root, err := html.Parse(strings.NewReader("<p>" + frag))
		if err != nil {
			t.Fatal(err)
		}
		b := findFirst(root, atom.B)
		w := writer{markdown: true}
		for range 2 { // computed, then memoized
			if got, want := w.hasText(b), strings.TrimSpace(textOf(b)) != ""; got != want {
				t.Errorf("%q: got %v; want %v", frag, got, want)
			}
		}
	}
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	for c := n; c != nil; c = nextNode(c, n, true) {
		if c.Type == html.ElementNode && c.DataAtom == a {
			return c
		}
	}
	return nil
}
