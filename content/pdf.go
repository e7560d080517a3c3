package content

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocfetch/ocfetch/content/pdf"
	"github.com/ocfetch/ocfetch/refusal"
)

// convertPDF turns a PDF into its text with content/pdf, which extracts
// in a child process under memory, CPU and time limits (see pdf.Extract).
// A PDF whose text cannot be extracted is described like any other binary
// body, with a note saying why. Errors: ctx.Err() when ctx is done, and
// pdf.Extract's internal_error refusal when the program cannot run the
// extraction (it did not call reexec.Init).
func convertPDF(ctx context.Context, body []byte, doc Document) (Document, error) {
	doc.Format = Text
	describe := func(note string) (Document, error) {
		doc.Text = describeBinary(doc.MediaType, body)
		doc.Notes = append(doc.Notes, note)
		return doc, nil
	}
	r, err := pdf.Extract(ctx, body)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return Document{}, cerr
		}
		if _, ok := refusal.As(err); ok {
			return Document{}, err
		}
		switch {
		case errors.Is(err, pdf.ErrUnsafe):
			return describe(fmt.Sprintf("PDF text not extracted (%v): binary content not shown", err))
		case errors.Is(err, pdf.ErrTooSlow):
			return describe("PDF text extraction took too long: binary content not shown")
		case errors.Is(err, pdf.ErrLimits):
			return describe("PDF text extraction needed more memory or CPU than it is allowed: binary content not shown")
		}
		return describe("PDF text could not be extracted: binary content not shown")
	}
	if strings.TrimSpace(r.Text) == "" {
		return describe(fmt.Sprintf("PDF has no extractable text (%d pages; perhaps scanned images)", r.Pages))
	}
	doc.Text = r.Text // made safe to show by Convert
	doc.Notes = append(doc.Notes, "text extracted from PDF: layout, tables and images are not preserved")
	if r.Read < r.Pages {
		doc.Notes = append(doc.Notes, fmt.Sprintf("only the first %d PDF pages were read", r.Read))
	}
	if r.Cut {
		doc.Notes = append(doc.Notes, "PDF text cut at 16 MiB")
	}
	return doc, nil
}
