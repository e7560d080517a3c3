package content

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestWriterModel: the Markdown and text renderers share one walk, so a
// list, a heading or a table is read the same way in both (the same
// item numbers, nesting, lines and cells); only the markup differs.
func TestWriterModel(t *testing.T) {
	wide := "<table><tr>" + strings.Repeat("<td>c</td>", 70) + "</tr></table>"
	tests := []struct {
		name, html     string
		wantMD, wantTx string
		note           string // a note both formats carry
	}{
		{name: "ol start kept", html: `<ol start="5"><li>a</li><li>b</li></ol>`, wantMD: "5. a\n6. b", wantTx: "5. a\n6. b"},
		{name: "ol start 0", html: `<ol start="0"><li>a</li><li>b</li></ol>`, wantMD: "0. a\n1. b", wantTx: "0. a\n1. b"},
		{name: "ol start negative counts from 1", html: `<ol start="-3"><li>a</li><li>b</li></ol>`, wantMD: "1. a\n2. b", wantTx: "1. a\n2. b"},
		{name: "ol start garbage counts from 1", html: `<ol start="x"><li>a</li></ol>`, wantMD: "1. a", wantTx: "1. a"},
		{name: "ol start empty", html: `<ol start=""><li>a</li></ol>`, wantMD: "1. a", wantTx: "1. a"},
		{name: "ol start read as a browser does", html: `<ol start=" +4th"><li>a</li><li>b</li></ol>`, wantMD: "4. a\n5. b", wantTx: "4. a\n5. b"},
		{name: "ol start with leading zeros", html: `<ol start="007"><li>a</li></ol>`, wantMD: "7. a", wantTx: "7. a"},
		{name: "ol start largest marker", html: `<ol start="999999999"><li>a</li></ol>`, wantMD: "999999999. a", wantTx: "999999999. a"},
		{name: "ol start whose last item passes nine digits", html: `<ol start="999999999"><li>a</li><li>b</li></ol>`, wantMD: "1. a\n2. b", wantTx: "1. a\n2. b"},
		{name: "ol start huge", html: `<ol start="99999999999999999999999"><li>a</li></ol>`, wantMD: "1. a", wantTx: "1. a"},
		{name: "ul ignores start", html: `<ul start="5"><li>a</li></ul>`, wantMD: "- a", wantTx: "- a"},
		{
			name:   "nested lists",
			html:   `<ul><li>one<ol start="3"><li>x</li><li>y<ul><li>deep</li></ul></li></ol></li><li>two</li></ul><p>after</p>`,
			wantMD: "- one\n\n  3. x\n  4. y\n     - deep\n\n- two\n\nafter",
			wantTx: "- one\n\n  3. x\n  4. y\n     - deep\n\n- two\n\nafter",
		},
		{
			name:   "nested list from 1 follows its item's text",
			html:   `<ul><li>one<ol><li>x</li></ol></li><li>two<ul><li>y</li></ul></li></ul>`,
			wantMD: "- one\n  1. x\n- two\n  - y",
			wantTx: "- one\n  1. x\n- two\n  - y",
		},
		{
			name:   "list in a table cell: markers between the items",
			html:   `<table><tr><th>k</th></tr><tr><td><ol start="2"><li>a</li><li>b</li></ol></td></tr></table>`,
			wantMD: "| k |\n|---|\n| 2. a 3. b |",
			wantTx: "k\n2. a 3. b",
		},
		{
			name:   "headings: one line each, empty ones left out",
			html:   `<h1>Title<br>sub</h1><h3> </h3><h2>Two <em>x</em></h2><p>p</p>`,
			wantMD: "# Title sub\n\n## Two *x*\n\np",
			wantTx: "Title sub\n\nTwo x\n\np",
		},
		{
			name:   "heading in a quote is marked once",
			html:   `<blockquote><h2>T</h2><p>q</p></blockquote>`,
			wantMD: "> ## T\n>\n> q",
			wantTx: "T\n\nq",
		},
		{
			name:   "heading inside a table cell",
			html:   `<table><tr><td>a<h3>b</h3>c</td></tr></table>`,
			wantMD: "| a b c |\n|---|",
			wantTx: "a b c",
		},
		{
			name:   "table with header, colspan and caption",
			html:   `<table><caption>Cap</caption><tr><th>a</th><th>b</th></tr><tr><td colspan="2">wide</td></tr><tr><td>1</td><td>2</td></tr></table>`,
			wantMD: "| a | b |\n|---|---|\n| wide | |\n| 1 | 2 |\n\nCap",
			wantTx: "a | b\nwide\n1 | 2\nCap",
		},
		{
			name:   "table nested in a cell: rows run on, cells kept apart",
			html:   `<table><tr><td>x</td><td><table><tr><td>i</td><td>j</td></tr></table></td></tr></table>`,
			wantMD: "| x | i \\| j |\n|---|---|",
			wantTx: "x | i | j",
		},
		{
			name: "table wider than the column bound", html: wide,
			wantMD: "| " + strings.Repeat("c | ", 63) + "c |\n|" + strings.Repeat("---|", 64),
			wantTx: strings.Repeat("c | ", 63) + "c",
			note:   "table columns after the 64th not shown",
		},
		{
			name:   "line break after a paragraph",
			html:   `<p>a</p><br>b<br>c`,
			wantMD: "a\n\nb\nc",
			wantTx: "a\n\nb\nc",
		},
		{
			name:   "definition with a list",
			html:   `<dl><dt>term</dt><dd>def<ul><li>x</li></ul></dd></dl>`,
			wantMD: "term\n  def\n\n  - x",
			wantTx: "term\n  def\n\n  - x",
		},
	}
	for _, tc := range tests {
		for _, f := range []Format{Markdown, Text} {
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				d, err := Convert(context.Background(), []byte(tc.html), "text/html", Options{Format: f, FullPage: true})
				if err != nil {
					t.Fatal(err)
				}
				want := tc.wantMD
				if f == Text {
					want = tc.wantTx
				}
				if d.Text != want {
					t.Errorf("got:\n%q\nwant:\n%q", d.Text, want)
				}
				if tc.note != "" && !strings.Contains(strings.Join(d.Notes, "\n"), tc.note) {
					t.Errorf("notes %q; want one saying %q", d.Notes, tc.note)
				}
			})
		}
	}
}

var itemMarker = regexp.MustCompile(`(?m)^(\d+)\. item`)

// FuzzListStart: whatever an <ol start> says, both formats number the
// list alike, with numbers a CommonMark marker can hold, one apart.
func FuzzListStart(f *testing.F) {
	for _, s := range []string{"3", "-3", "0", "999999998", "999999999", "1e9", " 12 ", "+7", "٣", "0x10", "9999999999999999999999"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, start string, items uint8) {
		page := `<ol start="` + strings.NewReplacer(`"`, "", "&", "").Replace(start) + `">` + strings.Repeat("<li>item</li>", int(items%8)+1) + "</ol>"
		var numbers [2][]string
		for i, f := range []Format{Markdown, Text} {
			d, err := Convert(context.Background(), []byte(page), "text/html", Options{Format: f, FullPage: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range itemMarker.FindAllStringSubmatch(d.Text, -1) {
				numbers[i] = append(numbers[i], m[1])
			}
		}
		if strings.Join(numbers[0], " ") != strings.Join(numbers[1], " ") || len(numbers[0]) != int(items%8)+1 {
			t.Fatalf("%s: Markdown numbers %v, text %v", page, numbers[0], numbers[1])
		}
		for i, s := range numbers[0] {
			n, err := strconv.Atoi(s)
			if err != nil || len(s) > 9 || (i > 0 && strconv.Itoa(n-1) != numbers[0][i-1]) {
				t.Fatalf("%s: numbers %v", page, numbers[0])
			}
		}
	})
}
