package content

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
)

// TestPDFHostileStructures feeds the structures that make the PDF library
// loop forever; each must be described, promptly, without extraction.
func TestPDFHostileStructures(t *testing.T) {
	good := pdftest.Minimal([]string{"Hello"})
	self := pdftest.WithTrailerEntry(good, fmt.Sprintf("/Prev %d", pdftest.Startxref(good)))
	tests := map[string][]byte{
		"xref /Prev points at itself":      self,
		"object stream extends":            bytes.Replace(good, []byte("/Type /Font"), []byte("/Type /Font /Extends 3 0 R"), 1),
		"object stream with 10^12 objects": bytes.Replace(good, []byte("/Type /Font"), []byte("/Type /Font /N 1000000000000"), 1),
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := Convert(context.Background(), body, "application/pdf", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(d.Text, "[binary content: application/pdf") || !containsNote(d, "cannot handle safely") {
				t.Errorf("got text %q notes %q; want a description and a note", d.Text, d.Notes)
			}
		})
	}
}

func TestPDFPageTreeCycle(t *testing.T) {
	// Kids of the page tree include the tree itself: the walk must end.
	objs := pdftest.Objects([]string{"Looped"})
	objs[1] = "<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 2 >>"
	body := pdftest.Assemble(objs)
	d, err := Convert(context.Background(), body, "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, d.Text, "Looped")
	if n := strings.Count(d.Text, "Looped"); n > 1000 {
		t.Errorf("page seen %d times; want at most %d", n, 1000)
	}
}

func TestPDFParentCycle(t *testing.T) {
	// A page without Resources whose /Parent is itself: Resources lookup in
	// the library would never end; the page is skipped, the others read.
	objs := pdftest.Objects([]string{"first"}, []string{"second"})
	objs[3] = "<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>"
	d, err := Convert(context.Background(), pdftest.Assemble(objs), "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, d.Text, "second")
	mustNotContain(t, d.Text, "first")
}
