package content

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hostileFamily is one family of the generated hostile HTML corpus (issue
// 14.1): build returns a body of about size bytes. tooComplex says the
// family is expected to be refused with content_too_complex rather than
// converted (at the given size), for the sizes the tests use.
type hostileFamily struct {
	name  string
	build func(size int) []byte
}

// fillTo repeats unit between prefix and suffix up to about size bytes.
func fillTo(size int, prefix, unit, suffix string) []byte {
	n := max(1, (size-len(prefix)-len(suffix))/len(unit))
	return []byte(prefix + strings.Repeat(unit, n) + suffix)
}

// noahsArk is the reproduction: a paragraph, then families
// distinct <b> elements (three per attribute set, which the Noah's Ark
// clause keeps) each carrying attrs attributes, then "<p>x" repeated up to
// size: every paragraph reconstructs every formatting element.
func noahsArk(size, families, attrs int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><title>ark</title><p>")
	for i := range families {
		var a strings.Builder
		for j := range attrs {
			fmt.Fprintf(&a, " a%d=%d", j, i)
		}
		for range 3 {
			b.WriteString("<b" + a.String() + ">")
		}
	}
	// At least a few paragraphs, even when the formatting elements alone
	// pass size (many attributes, a small size under -race): a page with
	// no text would convert to nothing and say nothing of the family.
	for n := 0; n < 16 || b.Len()+4 <= size; n++ {
		b.WriteString("<p>x")
	}
	return b.Bytes()
}

// hostileFamilies is the corpus. The sizes are chosen by the caller.
var hostileFamilies = []hostileFamily{
	// The formatting reconstruction family: counts and attributes vary.
	{"ark_10x1", func(n int) []byte { return noahsArk(n, 10, 1) }},
	{"ark_150x1", func(n int) []byte { return noahsArk(n, 150, 1) }}, // the page
	{"ark_100x1", func(n int) []byte { return noahsArk(n, 100, 1) }},
	{"ark_1000x1", func(n int) []byte { return noahsArk(n, 1000, 1) }},
	{"ark_100x100", func(n int) []byte { return noahsArk(n, 100, 100) }},
	{"ark_10x2000", func(n int) []byte { return noahsArk(n, 10, 2000) }},
	// Reconstruction in every table cell: formatting opened in cells
	// that never close.
	{"ark_in_cells", func(n int) []byte {
		return fillTo(n, "<table>", "<tr><td><b class=a><i class=b><u>x</td>", "</table>")
	}},
	// Misnested formatting (the adoption agency on every end tag).
	{"misnested", func(n int) []byte { return fillTo(n, "<p>", "<b><i><u><s>x</b></i></u></s>", "") }},
	{"adoption_deep", func(n int) []byte {
		return fillTo(n, "<b>"+strings.Repeat("<div>", 400), "<p>x</b>y", "")
	}},
	// Deep nesting: past the parser's 512 limit, and just under it with
	// megabytes of text at the bottom.
	{"nested_divs", func(n int) []byte { return fillTo(n, "", "<div>x", "") }},
	{"nested_500_text", func(n int) []byte {
		return fillTo(n, strings.Repeat("<div>", 500), "word ", "")
	}},
	{"nested_inline", func(n int) []byte { return fillTo(n, "", "<span><em>", "x") }},
	// Huge attribute counts on one element, and on many.
	{"attrs_one", func(n int) []byte { return fillTo(n, "<p><b", " a=1", ">x</b>") }},
	{"attrs_many", func(n int) []byte { return fillTo(n, "", `<p a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8>x`, "") }},
	// Unclosed tables and lists.
	{"unclosed_tables", func(n int) []byte { return fillTo(n, "", "<table><tr><td>x", "") }},
	{"unclosed_lists", func(n int) []byte { return fillTo(n, "", "<ul><li>x", "") }},
	{"table_rows", func(n int) []byte { return fillTo(n, "<table>", "<tr><td>a<td>b", "</table>") }},
	{"foster_text", func(n int) []byte { return fillTo(n, "<table>", "x<b>y", "") }},
	// Tiny dense tokens: the most nodes per byte a linear page can have.
	{"dense_p", func(n int) []byte { return fillTo(n, "", "<p>x", "") }},
	{"links", func(n int) []byte { return fillTo(n, "<div>", `<a href="/x?a=1&b=2">l</a> `, "</div>") }},
	// The existing pathological pages, at the size asked for.
	{"spec_repeated", func(n int) []byte {
		spec := mustRead("go_spec.html")
		return bytes.Repeat(spec, max(1, n/len(spec)))
	}},
}

// mustRead reads a file of testdata or panics (for corpus builders).
func mustRead(name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return b
}
