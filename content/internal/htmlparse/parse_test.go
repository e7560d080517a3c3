package htmlparse

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// render is the tree as x/net/html serializes it, or the error.
func render(root *html.Node, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b bytes.Buffer
	if err := html.Render(&b, root); err != nil {
		return "render error: " + err.Error()
	}
	return b.String()
}

// sameAsLibrary reports a difference between this copy's tree and
// x/net/html's for src, with a budget no page reaches.
func sameAsLibrary(t *testing.T, name string, src []byte) {
	t.Helper()
	got := render(Parse(context.Background(), bytes.NewReader(src), 1<<40))
	want := render(html.Parse(bytes.NewReader(src)))
	if got != want {
		t.Errorf("%s: the tree differs from x/net/html's:\ngot  %.300q\nwant %.300q", name, got, want)
	}
}

// samples are the tricky parts of tree construction: formatting
// reconstruction and the adoption agency, foster parenting, tables,
// templates, foreign content, frames, and broken markup.
var samples = []string{
	"", "x", "<p>a<b>b<p>c", "<b><i>x</b>y</i>z", "<a href=1><p>x<a href=2>y",
	"<table>x<tr><td>a<b>b</td>c</table>d", "<table><b><tr><td>x</b></table>",
	"<p><b class=a><b class=a><b class=a><b class=a><p>x", "<nobr>a<nobr>b",
	"<template><td>x</template><p>y", "<svg><foreignObject><p>x</svg>y", "<math><mi>x<b>y</math>",
	"<frameset><frame></frameset>", "<select><option>a<optgroup>b</select>", "<!DOCTYPE html><title>t</title><body>x",
	"<!-- c --><html><!-- d --><body></body></html><!-- e -->", "<div><b><div><i>x</b>y</div></i>",
	"<ruby>a<rt>b<rp>c</ruby>", "<textarea>\nx</textarea><pre>\ny</pre>", "<head><noscript><p>x</noscript>",
	"<p>" + strings.Repeat("<b>", 600) + "deep", "<table><caption>c<td>x", "<dl><dt>a<dd>b<dt>c",
	"<form><form>x</form>", "<isindex>", "<image src=x>", "<a><table><a>x</table>",
	"<b>1<p>2</b>3</p>", "<b><b><b><b>x</b></b></b></b>", "\x00<p>\x00x", "<plaintext><b>x",
}

func TestParseSameAsLibrary(t *testing.T) {
	for i, s := range samples {
		sameAsLibrary(t, "sample "+string(rune('A'+i%26)), []byte(s))
	}
	files, _ := filepath.Glob("../../testdata/*.html")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameAsLibrary(t, f, b)
	}
}

// FuzzParseSameAsLibrary: for any input, this copy builds x/net/html's
// tree (or fails the same way) when the budget is not reached.
//
//	go test ./content/internal/htmlparse -fuzz FuzzParseSameAsLibrary -fuzztime 60s
func FuzzParseSameAsLibrary(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sameAsLibrary(t, "fuzz", src)
	})
}

// TestParseBudget: the page (a paragraph, distinct <b> families,
// then "<p>x" repeated: 8 million nodes from 68 KB in x/net/html) is
// refused with ErrTooComplex once the budget is spent, and a page within
// its budget is not.
func TestParseBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("<p>")
	for i := range 150 { // 450 open <b>: under the 512 depth limit
		for range 3 {
			b.WriteString("<b a=" + strings.Repeat("z", i%7) + string(rune('a'+i%26)) + ">")
		}
	}
	for b.Len() < 68<<10 {
		b.WriteString("<p>x")
	}
	_, err := Parse(context.Background(), strings.NewReader(b.String()), 1<<20)
	if !errors.Is(err, ErrTooComplex) {
		t.Fatalf("Noah's Ark page: got %v; want ErrTooComplex", err)
	}
	small := "<p>" + strings.Repeat("<b>x</b> ", 100)
	if _, err := Parse(context.Background(), strings.NewReader(small), 1000); err != nil {
		t.Errorf("page within its budget: got %v; want a tree", err)
	}
	if _, err := Parse(context.Background(), strings.NewReader(small), 100); !errors.Is(err, ErrTooComplex) {
		t.Errorf("same page, budget 100: got %v; want ErrTooComplex", err)
	}
}

// TestParseObservesContext: a done context stops the parse with its error.
func TestParseObservesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	page := strings.Repeat("<p>x", 10000)
	if _, err := Parse(ctx, strings.NewReader(page), 1<<30); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
	if _, err := Parse(ctx, strings.NewReader("<p>x"), 1<<30); err != nil {
		t.Errorf("short page (under one ctx check): got %v; want a tree", err)
	}
}
