package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// outputBefore is the structured content's type before the output shapes
// became one (fetch.Output), frozen here: today's JSON must be its JSON
// with added fields only.
type outputBefore struct {
	Status         int               `json:"status"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Format         string            `json:"format"`
	Truncated      bool              `json:"truncated"`
	NextStartIndex int               `json:"next_start_index"`
	Bytes          int64             `json:"bytes"`
	BodyTruncated  bool              `json:"body_truncated"`
	Cached         bool              `json:"cached,omitempty"`
	FetchedAt      string            `json:"fetched_at,omitempty"`
	RedirectTo     string            `json:"redirect_to,omitempty"`
}

// before is what the server sent for fo before: outputFrom's projection
// (headers never null) with markCached's fields.
func before(fo fetch.Output) outputBefore {
	h := fo.Headers
	if h == nil {
		h = map[string]string{}
	}
	return outputBefore{Status: fo.Status, URL: fo.URL, Headers: h, Format: string(fo.Format), Truncated: fo.Truncated,
		NextStartIndex: fo.NextStartIndex, Bytes: fo.Bytes, BodyTruncated: fo.BodyTruncated,
		Cached: fo.Cached, FetchedAt: fo.FetchedAt, RedirectTo: fo.RedirectTo}
}

// withoutKeys re-encodes the JSON object data without the top-level keys
// drop, keeping the others' bytes and order.
func withoutKeys(t *testing.T, data []byte, drop map[string]bool) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object", data)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if drop[k.(string)] {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	return append(b.Bytes(), '}')
}

// TestStructuredContentShape: for representative results, the structured
// content is byte for byte what it was before the shapes became one, once
// the added fields are taken out; without them (nil, zero) it is the same
// bytes; the page content is never in it (it is the text content).
func TestStructuredContentShape(t *testing.T) {
	added := map[string]bool{"title": true, "media_type": true, "start_index": true, "remaining": true, "notes": true}
	hdr := map[string]string{"content-type": "text/html; charset=utf-8", "etag": `"v1"`}
	for _, tc := range []struct {
		name string
		out  fetch.Output
		// same: no added field is set, so the bytes are the same as before.
		same bool
	}{
		{"a page", fetch.Output{Status: 200, URL: "https://example.com/", Headers: hdr, Content: "# Hi", Format: "markdown", Bytes: 120, Title: "Hi", MediaType: "text/html"}, false},
		{"no headers, no content", fetch.Output{Status: 204, URL: "https://example.com/", Format: "raw"}, true},
		{"a window of a long page", fetch.Output{Status: 200, URL: "https://example.com/l", Headers: hdr, Content: strings.Repeat("x", 100), Format: "text", StartIndex: 100, Truncated: true, NextStartIndex: 200, Remaining: 50, Bytes: 250, MediaType: "text/plain"}, false},
		{"a body cut at the cap", fetch.Output{Status: 200, URL: "https://example.com/big", Headers: hdr, Content: "x", Format: "raw", Bytes: 1000, BodyTruncated: true, Notes: []string{"body cut at 1000 bytes (the cap); the content is that of the first 1000 bytes"}}, false},
		{"from the cache", fetch.Output{Status: 200, URL: "https://example.com/", Headers: hdr, Content: "x", Format: "raw", Bytes: 1, Cached: true, FetchedAt: "2026-12-01T12:00:00Z"}, true},
		{"a refused redirect", fetch.Output{Status: 302, URL: "https://example.com/r", Headers: map[string]string{"location": "https://other.example/"}, Format: "markdown", RedirectTo: "https://other.example/"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := json.Marshal(before(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			so, ok := outputFrom(tc.out)
			if !ok {
				t.Fatal("outputFrom: not an Output")
			}
			got, err := json.Marshal(so)
			if err != nil {
				t.Fatal(err)
			}
			if tc.same && !bytes.Equal(got, old) {
				t.Errorf("got  %s\nwant %s (the same bytes: nothing added is set)", got, old)
			}
			if stripped := withoutKeys(t, got, added); !bytes.Equal(stripped, old) {
				t.Errorf("without the added fields:\ngot  %s\nwant %s", stripped, old)
			}
			if bytes.Contains(got, []byte(`"content"`)) {
				t.Errorf("structured content %s carries the page content; want it in the text only", got)
			}
			validateOutput(t, so)
		})
	}
}

// TestSchemaBoundsAndCacheTTL: the input schema states start_index's
// maximum (the largest value PrepareCall accepts), and the output
// schema's cached says the server's --cache-ttl, not always the default.
func TestSchemaBoundsAndCacheTTL(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	for _, tc := range []struct {
		ttl  time.Duration
		want string
	}{
		{0, "up to 15 minutes old"},
		{90 * time.Second, "up to 90 seconds old"},
		{2 * time.Hour, "up to 2 hours old"},
		{time.Minute, "up to 1 minute old"},
		{-1, "the cache is off"},
	} {
		cs := connect(t, &Options{Root: ws.Root, CacheTTL: tc.ttl}, clientSpec{})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var schemas struct {
			In struct {
				Properties map[string]struct {
					Maximum *float64 `json:"maximum"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
		remarshal(t, res.Tools[0], &schemas)
		if m := schemas.In.Properties["start_index"].Maximum; m == nil || *m != fetchargs.MaxStartIndex {
			t.Errorf("start_index maximum = %v; want %d", m, fetchargs.MaxStartIndex)
		}
		var out struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		remarshal(t, res.Tools[0].OutputSchema, &out)
		d := out.Properties["cached"].Description
		if !strings.Contains(d, tc.want) || (tc.ttl != 0 && strings.Contains(d, "15 minutes")) {
			t.Errorf("--cache-ttl %v: cached description %q; want it to say %q", tc.ttl, d, tc.want)
		}
	}
}
