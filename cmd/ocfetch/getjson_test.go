package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/refusal"
)

// getJSONBefore is `get --json`'s success object before the output shapes
// became one (fetch.Output), frozen here: today's JSON must be its JSON
// with added fields only.
type getJSONBefore struct {
	OK             bool              `json:"ok"`
	Status         int               `json:"status"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Content        string            `json:"content"`
	Format         content.Format    `json:"format"`
	Truncated      bool              `json:"truncated"`
	NextStartIndex int               `json:"next_start_index"`
	Bytes          int64             `json:"bytes"`
	BodyTruncated  bool              `json:"body_truncated"`
	Title          string            `json:"title,omitempty"`
}

// dropKeys re-encodes the JSON object data without the top-level keys
// drop, keeping the others' bytes and order.
func dropKeys(t *testing.T, data []byte, drop map[string]bool) []byte {
	t.Helper()
	var kv [][]byte
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object", data)
	}
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err == nil {
			err = dec.Decode(&v)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !drop[k.(string)] {
			kb, _ := json.Marshal(k)
			kv = append(kv, append(append(kb, ':'), v...))
		}
	}
	return append(append([]byte{'{'}, bytes.Join(kv, []byte{','})...), '}')
}

// TestGetJSONBeforeAfter: for representative results, `get --json` writes byte
// for byte what it wrote before the shapes became one, once the added
// fields are taken out; without them it is the same bytes, "content"
// included when empty.
func TestGetJSONBeforeAfter(t *testing.T) {
	added := map[string]bool{"media_type": true, "start_index": true, "remaining": true, "notes": true}
	hdr := map[string]string{"content-type": "text/html; charset=utf-8", "etag": `"v1"`}
	for _, tc := range []struct {
		name string
		out  fetch.Output
		same bool
	}{
		{"a page", fetch.Output{Status: 200, URL: "https://example.com/", Headers: hdr, Content: "# Hi", Format: content.Markdown, Bytes: 120, Title: "Hi", MediaType: "text/html"}, false},
		{"no headers, no content", fetch.Output{Status: 204, URL: "https://example.com/", Format: content.Raw}, true},
		{"a window of a long page", fetch.Output{Status: 200, URL: "https://example.com/l", Headers: hdr, Content: strings.Repeat("x", 100), Format: content.Text, StartIndex: 100, Truncated: true, NextStartIndex: 200, Remaining: 50, Bytes: 250}, false},
		{"a body cut at the cap", fetch.Output{Status: 200, URL: "https://example.com/big", Headers: hdr, Content: "x", Format: content.Raw, Bytes: 1000, BodyTruncated: true, Notes: []string{"body cut at 1000 bytes (the cap)"}}, false},
		{"a 404 with a title", fetch.Output{Status: 404, URL: "https://example.com/x", Headers: hdr, Content: "gone", Format: content.Markdown, Bytes: 4, Title: "Not found"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.out
			h := o.Headers
			if h == nil {
				h = map[string]string{} // get wrote {} for none (nonNil)
			}
			old, err := json.Marshal(getJSONBefore{OK: true, Status: o.Status, URL: o.URL, Headers: h, Content: o.Content, Format: o.Format,
				Truncated: o.Truncated, NextStartIndex: o.NextStartIndex, Bytes: o.Bytes, BodyTruncated: o.BodyTruncated, Title: o.Title})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := fetch.OutputOf(o) // as get reads the tool's result
			got, err := json.Marshal(getJSON{OK: true, Output: out})
			if err != nil {
				t.Fatal(err)
			}
			if tc.same && !bytes.Equal(got, old) {
				t.Errorf("got  %s\nwant %s (the same bytes: nothing added is set)", got, old)
			}
			if stripped := dropKeys(t, got, added); !bytes.Equal(stripped, old) {
				t.Errorf("without the added fields:\ngot  %s\nwant %s", stripped, old)
			}
		})
	}
}

// TestJSONUsageErrorFromEnvironment: under --json, get and search report a
// usage error as the one JSON object (invalid_arguments, exit 2) — also one
// found before the command runs, such as a bad OCFETCH_DEBUG. Only a flag
// value cobra cannot parse stays text (README, `ocfetch get`).
func TestJSONUsageErrorFromEnvironment(t *testing.T) {
	root := newRoot(t)
	t.Setenv(diag.EnvVar, "loud")
	for _, args := range [][]string{
		{"get", "--json", "https://example.com/"},
		{"search", "--json", "query"},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
		r.want(t, exitUsage, nil, nil)
		var got errorJSON
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || got.OK || got.Error.Reason != refusal.InvalidArguments ||
			!strings.Contains(got.Error.Message, diag.EnvVar) || got.Error.Hint == "" || r.stderr != "" {
			t.Errorf("%v: stdout %q, stderr %q (%v); want the invalid_arguments object naming %s, nothing on stderr", args, r.stdout, r.stderr, err, diag.EnvVar)
		}
		// Without --json: the message and the hint on stderr, as before.
		r = ocfetch(t, cliOptions{}, append([]string{"--root", root}, args[0], args[2])...)
		r.want(t, exitUsage, nil, []string{"ocfetch: " + diag.EnvVar, "\nhint: set " + diag.EnvVar})
		if r.stdout != "" {
			t.Errorf("%v without --json: stdout %q; want nothing", args, r.stdout)
		}
	}
}

// TestJSONFlagErrorsStayText: the exceptions README's --json states — a
// flag cobra does not know, and a flag value it cannot parse at all — are
// found before --json is known: text on stderr, exit 2, nothing on
// stdout.
func TestJSONFlagErrorsStayText(t *testing.T) {
	root := newRoot(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--json", "--frobnicate", "https://example.com/"}, "unknown flag: --frobnicate"},
		{[]string{"get", "--json", "--timeout", "abc", "https://example.com/"}, `invalid argument "abc"`},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
		r.want(t, exitUsage, nil, []string{tc.want})
		if r.stdout != "" {
			t.Errorf("%v: stdout %q; want nothing (the error is text on stderr)", tc.args, r.stdout)
		}
	}
}
