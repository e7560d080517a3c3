package pdf

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
	"github.com/ocfetch/ocfetch/refusal"
)

// FuzzExtract: a PDF from the network, end to end through the child.
// Whatever the bytes, the child answers (no internal_error: it neither
// dies unanswered nor writes a malformed header), the outcome is the text
// or one of the named errors, and the text is valid UTF-8, bounded, with
// Read ≤ Pages and Read ≤ 1000.
func FuzzExtract(f *testing.F) {
	f.Add(pdftest.Minimal([]string{"Hello PDF"}, []string{"Second page"}))
	f.Add(pdftest.WithTrailerEntry(pdftest.Minimal([]string{"x"}), "/Prev 9"))
	f.Add([]byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer<</Root 1 0 R>>"))
	f.Add([]byte("not a pdf"))
	saved := Timeout
	Timeout = 2 * time.Second
	f.Cleanup(func() { Timeout = saved })
	f.Fuzz(func(t *testing.T, body []byte) {
		in := bytes.Clone(body)
		r, err := Extract(context.Background(), body)
		if !bytes.Equal(in, body) {
			t.Fatal("Extract changed the body")
		}
		if err != nil {
			if code := refusal.CodeOf(err); code != "" {
				t.Fatalf("Extract: refusal %q: %v", code, err)
			}
			if !errors.Is(err, ErrUnsafe) && !errors.Is(err, ErrUnreadable) && !errors.Is(err, ErrTooSlow) && !errors.Is(err, ErrLimits) {
				t.Fatalf("Extract: %v; want the text or a named error", err)
			}
			if r != (Result{}) {
				t.Fatalf("Extract: %v with a result %+v", err, r)
			}
			return
		}
		if !utf8.ValidString(r.Text) || len(r.Text) > maxText {
			t.Fatalf("Extract: text of %d bytes, UTF-8 %v", len(r.Text), utf8.ValidString(r.Text))
		}
		if r.Read < 0 || r.Read > r.Pages || r.Read > maxPages {
			t.Fatalf("Extract: read %d of %d pages", r.Read, r.Pages)
		}
	})
}
