package pdf

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// The extraction itself, run in the child (child.go): the library is
// github.com/ledongthuc/pdf (pure Go, maintained), which reports malformed
// input by panicking and is not hardened against hostile files. Panics are
// recovered, pages are found by a bounded, cycle-safe walk of the page
// tree, and a page whose /Parent chain is a cycle is skipped (its
// Resources lookup would follow the cycle forever): each gives a better
// outcome than the child's CPU limit would.

// maxPages bounds the pages read from one PDF.
const maxPages = 1000

// pdfText extracts the text of up to maxPages pages, page by page.
func pdfText(ctx context.Context, body []byte) (text string, pages, read int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdf: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", 0, 0, err
	}
	list, complete := pdfPages(r.Trailer().Key("Root").Key("Pages"), maxPages)
	pages = len(list)
	var b strings.Builder
	for _, p := range list {
		if err := ctx.Err(); err != nil {
			return "", pages, read, err
		}
		read++
		t, ok := pageText(p)
		if !ok {
			continue // one bad page does not hide the others
		}
		t = strings.TrimSpace(strings.ToValidUTF8(t, "\uFFFD"))
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	if !complete {
		pages++ // at least one more than was read
	}
	return b.String(), pages, read, nil
}

// pageText is one page's text, or false when the library fails on it.
func pageText(p pdf.Page) (text string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if !parentChainEnds(p.V) {
		return "", false // Resources lookup would follow the cycle forever
	}
	fonts := make(map[string]*pdf.Font)
	for _, name := range p.Fonts() {
		f := p.Font(name)
		fonts[name] = &f
	}
	t, err := p.GetPlainText(fonts)
	return t, err == nil
}

func parentChainEnds(v pdf.Value) bool {
	for range 64 {
		if v.IsNull() {
			return true
		}
		v = v.Key("Parent")
	}
	return false
}

// pdfPages lists the leaf pages of a page tree in order with a bounded,
// depth-first walk that a cyclic or absurdly deep tree cannot trap. It
// reports false when it stopped early (more than limit pages, or the
// visit budget ran out).
func pdfPages(root pdf.Value, limit int) ([]pdf.Page, bool) {
	type item struct {
		v     pdf.Value
		depth int
	}
	var pages []pdf.Page
	stack := []item{{root, 0}}
	budget := 4*limit + 64
	for len(stack) > 0 {
		if budget--; budget < 0 {
			return pages, false
		}
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.v.IsNull() || it.depth > 32 {
			continue
		}
		kids := it.v.Key("Kids")
		if it.v.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array {
			for i := min(kids.Len(), limit+1) - 1; i >= 0; i-- {
				stack = append(stack, item{kids.Index(i), it.depth + 1})
			}
			continue
		}
		if len(pages) == limit {
			return pages, false
		}
		pages = append(pages, pdf.Page{V: it.v})
	}
	return pages, true
}
