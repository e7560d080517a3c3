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

// TestDeepStackTokensAreCharged: handling a token may scan the stack of
// open elements (<li> looks for an open <p> in button scope and an open
// <li> in list item scope, </p> for its <p>, an unknown end tag for its
// element down to the first special one), so under 500 nested elements
// each token did 500 steps of work while it was charged one unit: 5 MiB
// of "</p>" under <div>s kept the parser busy for 20 s before the budget
// stopped it, 5 MiB of "<ul></ul>" for 10 s before converting, "</zz>"
// under <span>s for 6 s. The elements scanned are now charged, so such a
// page is content_too_complex at a fraction of that work; the same tokens
// at a real page's depth still convert.
func TestDeepStackTokensAreCharged(t *testing.T) {
	for _, tt := range []struct{ open, unit string }{
		{"<div>", "</p>"}, {"<div>", "<li>"}, {"<div>", "<dd>"}, {"<div>", "<hr>"},
		{"<div>", "<ul></ul>"}, {"<div>", "<h1></h1>"}, {"<div>", "</li>"}, {"<span>", "</zz>"},
	} {
		for _, depth := range []int{500, 20} {
			n := (64 << 10) / len(tt.unit)
			body := []byte(strings.Repeat(tt.open, depth) + strings.Repeat(tt.unit, n))
			_, err := Convert(context.Background(), body, "text/html", Options{FullPage: true, Format: Text})
			r, refused := refusal.As(err)
			refused = refused && r.Code == refusal.ContentTooComplex
			if want := depth == 500; refused != want || (!refused && err != nil) {
				t.Errorf("%d %ss then %q × %d: got %v; want content_too_complex %v", depth, tt.open, tt.unit, n, err, want)
			}
		}
	}
}
