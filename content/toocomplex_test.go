package content

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

// TestNoahsArkIsContentTooComplex is issue 14.1's reproduction: 68 KB of
// misnested formatting elements (8 million nodes, 1.35 GB in x/net/html)
// is refused by name, with the hint a user needs, and the same body is
// still returned by format raw.
func TestNoahsArkIsContentTooComplex(t *testing.T) {
	body := noahsArk(68<<10, 150, 1)
	for _, opts := range []Options{{}, {FullPage: true}, {Format: Text}} {
		_, err := Convert(context.Background(), body, "text/html; charset=utf-8", opts)
		r, ok := refusal.As(err)
		if !ok || r.Code != refusal.ContentTooComplex {
			t.Fatalf("%+v: got %v; want content_too_complex", opts, err)
		}
		if !strings.Contains(r.Hint, "format: raw") || !strings.Contains(r.Message, "too complex") {
			t.Errorf("message %q, hint %q; want them to say the page is too complex and that format: raw returns it", r.Message, r.Hint)
		}
	}
	d, err := Convert(context.Background(), body, "text/html", Options{Format: Raw})
	if err != nil || d.Text != string(body) {
		t.Errorf("raw: got %d bytes, %v; want the body as received", len(d.Text), err)
	}
}

// TestConvertHTMLObservesContextWhileParsing: a context that is done
// stops a conversion inside the parse, with the context's error.
func TestConvertHTMLObservesContextWhileParsing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Convert(ctx, []byte(strings.Repeat("<p>x", 100_000)), "text/html", Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
}
