package content

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the pages read from one PDF.
const maxPDFPages = 1000

// pdfTimeout bounds one extraction, and the wait for the extraction slot;
// past it the PDF is described instead. A variable for tests.
var pdfTimeout = 10 * time.Second

// PDF text comes from github.com/ledongthuc/pdf (pure Go, maintained).
// That library is not hardened against hostile files: it reports malformed
// input by panicking, and some malformed structures make it loop forever
// (a cross-reference /Prev chain that points back at itself, an object
// stream that /Extends itself, an object stream claiming 10^18 objects, a
// page whose /Parent chain is a cycle), recurse until the stack overflows
// (an object stream listed as inside an object stream) or allocate without
// bound (an xref /Size or /Index of 10^12). So every call into it is
// guarded:
//   - pdfPrecheck (pdfcheck.go) refuses files with those structures
//     before parsing, reading names and xref sections the way the
//     library's lexer does (#xx escapes, comments, strings);
//   - pages are found by a bounded, cycle-safe walk of the page tree;
//   - panics are recovered;
//   - extraction runs on its own goroutine under pdfTimeout (and ctx), and
//     at most one runs at a time per process (pdfSlot): a file that still
//     defeats the library costs at most one goroutine, and later PDFs wait
//     at most pdfTimeout for the slot before being described instead.
//
// A PDF that cannot be read is described like any other binary body, with
// a note saying why.
//
// What can still hang: the precheck covers the loops known in the library
// version in go.mod (readPrevXrefs, /Extends, /N, the page tree, /Parent),
// not every path. Work that is finite but huge is not prechecked: a
// content stream that inflates to gigabytes (a flate bomb), a /Contents
// array naming one big stream thousands of times, fonts and CMaps parsed
// per page. The extraction goroutine checks ctx only between pages and
// cannot be stopped inside the library, so such a file can keep it (and
// pdfSlot) busy after the 10 s watchdog has answered: later PDFs are then
// described ("another extraction is still running") until it ends. A
// stack overflow or an out-of-memory inside the library would kill the
// process; the precheck refuses the structures known to cause them.
var (
	pdfSlot    = make(chan struct{}, 1)
	pdfExtract = pdfText // replaced in tests
)

func convertPDF(ctx context.Context, body []byte, doc Document) (Document, error) {
	doc.Format = Text
	describe := func(note string) (Document, error) {
		doc.Text = describeBinary(doc.MediaType, body)
		doc.Notes = append(doc.Notes, note)
		return doc, nil
	}
	if err := pdfPrecheck(body); err != nil {
		return describe(fmt.Sprintf("PDF text not extracted (%v): binary content not shown", err))
	}
	wait := time.NewTimer(pdfTimeout)
	defer wait.Stop()
	select {
	case pdfSlot <- struct{}{}:
	case <-ctx.Done():
		return Document{}, ctx.Err()
	case <-wait.C:
		return describe("PDF text not extracted (another extraction is still running): binary content not shown")
	}
	type result struct {
		text        string
		pages, read int
		err         error
	}
	done := make(chan result, 1)
	ectx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	extract := pdfExtract
	go func() {
		defer func() { <-pdfSlot }()
		var r result
		r.text, r.pages, r.read, r.err = extract(ectx, body)
		done <- r
	}()
	var r result
	select {
	case r = <-done:
	case <-ectx.Done():
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		return describe("PDF text extraction took too long: binary content not shown")
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	if r.err != nil {
		return describe("PDF text could not be extracted: binary content not shown")
	}
	if strings.TrimSpace(r.text) == "" {
		return describe(fmt.Sprintf("PDF has no extractable text (%d pages; perhaps scanned images)", r.pages))
	}
	doc.Text = r.text
	doc.Notes = append(doc.Notes, "text extracted from PDF: layout, tables and images are not preserved")
	if r.read < r.pages {
		doc.Notes = append(doc.Notes, fmt.Sprintf("only the first %d PDF pages were read", r.read))
	}
	return doc, nil
}

// pdfText extracts the text of up to maxPDFPages pages, page by page.
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
	list, complete := pdfPages(r.Trailer().Key("Root").Key("Pages"), maxPDFPages)
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
