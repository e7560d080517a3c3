package pdf

import (
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
)

func TestMinimalPDFIsReadable(t *testing.T) {
	text, pages, _, err := pdfText(t.Context(), pdftest.Minimal([]string{"Hello PDF"}, []string{"Second page"}))
	if err != nil {
		t.Fatalf("pdfText: %v", err)
	}
	if pages != 2 || !strings.Contains(text, "Hello PDF") || !strings.Contains(text, "Second page") {
		t.Fatalf("got pages=%d text=%q; want 2 pages with both lines", pages, text)
	}
}
