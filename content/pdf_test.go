package content

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// withTrailerEntry returns a copy of a minimalPDF with entry added to its trailer.
func withTrailerEntry(pdfBytes []byte, entry string) []byte {
	return bytes.Replace(pdfBytes, []byte("/Root 1 0 R >>"), []byte("/Root 1 0 R "+entry+" >>"), 1)
}

func startxrefOf(t *testing.T, b []byte) int {
	t.Helper()
	i := bytes.LastIndex(b, []byte("startxref\n"))
	var off int
	if _, err := fmt.Sscanf(string(b[i+len("startxref\n"):]), "%d", &off); err != nil {
		t.Fatal(err)
	}
	return off
}

// TestPDFHostileStructures feeds the structures that make the PDF library
// loop forever; each must be described, promptly, without extraction.
func TestPDFHostileStructures(t *testing.T) {
	good := minimalPDF([]string{"Hello"})
	self := withTrailerEntry(good, fmt.Sprintf("/Prev %d", startxrefOf(t, good)))
	tests := map[string][]byte{
		"xref /Prev points at itself":      self,
		"object stream extends":            bytes.Replace(good, []byte("/Type /Font"), []byte("/Type /Font /Extends 3 0 R"), 1),
		"object stream with 10^12 objects": bytes.Replace(good, []byte("/Type /Font"), []byte("/Type /Font /N 1000000000000"), 1),
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			d, err := Convert(context.Background(), body, "application/pdf", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(d.Text, "[binary content: application/pdf") || !containsNote(d, "cannot handle safely") {
				t.Errorf("got text %q notes %q; want a description and a note", d.Text, d.Notes)
			}
			if time.Since(start) > pdfTimeout {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
}

func TestPDFPageTreeCycle(t *testing.T) {
	// Kids of the page tree include the tree itself: the walk must end.
	objs := minimalPDFObjects([]string{"Looped"})
	objs[1] = "<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 2 >>"
	body := assemblePDF(objs)
	d, err := Convert(context.Background(), body, "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, d.Text, "Looped")
	if n := strings.Count(d.Text, "Looped"); n > maxPDFPages {
		t.Errorf("page seen %d times; want at most %d", n, maxPDFPages)
	}
}

func TestPDFParentCycle(t *testing.T) {
	// A page without Resources whose /Parent is itself: Resources lookup in
	// the library would never end; the page is skipped, the others read.
	objs := minimalPDFObjects([]string{"first"}, []string{"second"})
	objs[3] = "<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>"
	d, err := Convert(context.Background(), assemblePDF(objs), "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, d.Text, "second")
	mustNotContain(t, d.Text, "first")
}

// TestPDFWatchdog: an extraction that never returns is abandoned after
// pdfTimeout, and while its goroutine holds the slot later PDFs wait at
// most pdfTimeout (or until their ctx ends) and are then described.
func TestPDFWatchdog(t *testing.T) {
	release := make(chan struct{})
	saved, savedTimeout := pdfExtract, pdfTimeout
	pdfTimeout = 100 * time.Millisecond
	pdfExtract = func(ctx context.Context, body []byte) (string, int, int, error) {
		<-release // a library stuck in a loop
		return "", 0, 0, nil
	}
	t.Cleanup(func() {
		close(release)
		// Wait for the stuck goroutine to give the slot back.
		pdfSlot <- struct{}{}
		<-pdfSlot
		pdfExtract, pdfTimeout = saved, savedTimeout
	})
	body := minimalPDF([]string{"x"})

	// 1. The stuck extraction is abandoned after pdfTimeout.
	d, err := Convert(context.Background(), body, "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !containsNote(d, "took too long") || !strings.HasPrefix(d.Text, "[binary content") {
		t.Errorf("got text %q notes %q; want a description and the timeout note", d.Text, d.Notes)
	}
	// 2. Its goroutine still holds the slot: a caller's deadline ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Convert(ctx, body, "application/pdf", Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for the slot with a deadline: got %v; want context.DeadlineExceeded", err)
	}
	// 3. Without a deadline the wait ends after pdfTimeout with a description.
	d, err = Convert(context.Background(), body, "application/pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !containsNote(d, "another extraction is still running") {
		t.Errorf("notes: got %q; want the busy note", d.Notes)
	}
}
