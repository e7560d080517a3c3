package content

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the pages read from one PDF.
const maxPDFPages = 1000

// convertPDF extracts the text of a PDF, page by page, with
// github.com/ledongthuc/pdf (pure Go). That library reports malformed input
// by panicking; every call into it is guarded, and a PDF it cannot read is
// described like any other binary body, with a note.
func convertPDF(ctx context.Context, body []byte, doc Document) (Document, error) {
	text, pages, read, err := pdfText(ctx, body)
	if cerr := ctx.Err(); cerr != nil {
		return Document{}, cerr
	}
	doc.Format = Text
	if err != nil {
		doc.Text = describeBinary(doc.MediaType, body)
		doc.Notes = append(doc.Notes, "PDF text could not be extracted: binary content not shown")
		return doc, nil
	}
	if strings.TrimSpace(text) == "" {
		doc.Text = describeBinary(doc.MediaType, body)
		doc.Notes = append(doc.Notes, fmt.Sprintf("PDF has no extractable text (%d pages; perhaps scanned images)", pages))
		return doc, nil
	}
	doc.Text = text
	doc.Notes = append(doc.Notes, "text extracted from PDF: layout, tables and images are not preserved")
	if read < pages {
		doc.Notes = append(doc.Notes, fmt.Sprintf("only the first %d of %d PDF pages were read", read, pages))
	}
	return doc, nil
}

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
	pages = r.NumPage()
	if pages < 0 {
		pages = 0
	}
	n := min(pages, maxPDFPages)
	fonts := make(map[string]*pdf.Font)
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if ctx.Err() != nil {
			return "", pages, read, ctx.Err()
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		for _, name := range p.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		t, perr := p.GetPlainText(fonts)
		if perr != nil {
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
	read = n
	return b.String(), pages, read, nil
}
