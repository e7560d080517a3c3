package localfetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestBoundedResponseHeaders(t *testing.T) {
	long := strings.Repeat("a", 10000)
	tests := []struct {
		name string
		h    http.Header
		want map[string]string
	}{
		{"nil", nil, map[string]string{}},
		{"none of the six", http.Header{"Set-Cookie": {"s=1"}, "Authorization": {"Bearer x"}}, map[string]string{}},
		{
			"the six, nothing else",
			http.Header{
				"Content-Type":     {"text/html; charset=utf-8"},
				"Content-Length":   {"1234"},
				"Location":         {"/next"},
				"Last-Modified":    {"Mon, 30 Nov 2026 11:00:00 GMT"},
				"Etag":             {`"abc"`},
				"Server":           {"vite"},
				"Set-Cookie":       {"session=secret"},
				"X-Api-Key":        {"k"},
				"Www-Authenticate": {"Basic"},
			},
			map[string]string{
				"content-type":   "text/html; charset=utf-8",
				"content-length": "1234",
				"location":       "/next",
				"last-modified":  "Mon, 30 Nov 2026 11:00:00 GMT",
				"etag":           `"abc"`,
				"server":         "vite",
			},
		},
		{"absent omitted, empty kept", http.Header{"Server": {""}}, map[string]string{"server": ""}},
		{"repeated values joined", http.Header{"Server": {"a", "b", "c"}}, map[string]string{"server": "a, b, c"}},
		{"non-canonical key", http.Header{"ETag": {`"x"`}, "content-type": {"text/plain"}}, map[string]string{"etag": `"x"`, "content-type": "text/plain"}},
		{"canonical first, other spelling after", http.Header{"Etag": {"a"}, "ETag": {"b"}}, map[string]string{"etag": "a, b"}},
		// Every family of characters unsafe to show is replaced visibly
		// (safetext.Line); a tab, which HTTP reads as a space, is one.
		{"tab", http.Header{"Server": {"a\tb"}}, map[string]string{"server": "a b"}},
		{"C0 controls and DEL", http.Header{"Server": {"a\x00b\x1b]0;x\x07c\rd\ne\x7f"}}, map[string]string{"server": "a\uFFFDb\uFFFD]0;x\uFFFDc\uFFFDd\uFFFDe\uFFFD"}},
		{"C1 controls", http.Header{"Etag": {"a\u0085b\u009b2Jc\u009d"}}, map[string]string{"etag": "a\uFFFDb\uFFFD2Jc\uFFFD"}},
		{"bidi overrides and embeddings", http.Header{"Server": {"a\u202ab\u202bc\u202cd\u202de\u202e"}}, map[string]string{"server": "a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFD"}},
		{"bidi isolates", http.Header{"Last-Modified": {"\u2066a\u2067b\u2068c\u2069"}}, map[string]string{"last-modified": "\uFFFDa\uFFFDb\uFFFDc\uFFFD"}},
		{"bidi marks", http.Header{"Location": {"/a\u200eb\u200fc\u061c"}}, map[string]string{"location": "/a\uFFFDb\uFFFDc\uFFFD"}},
		{"invalid UTF-8", http.Header{"Server": {"a\xffb"}}, map[string]string{"server": "a\uFFFDb"}},
		{"printable Unicode kept", http.Header{"Server": {"café 日本"}}, map[string]string{"server": "café 日本"}},
		{"long value cut", http.Header{"Location": {long}}, map[string]string{"location": strings.Repeat("a", MaxHeaderValueBytes-len("…")) + "…"}},
		{"exactly the bound", http.Header{"Location": {long[:MaxHeaderValueBytes]}}, map[string]string{"location": long[:MaxHeaderValueBytes]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := BoundedResponseHeaders(tc.h)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("BoundedResponseHeaders mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBoundedResponseHeadersFlood: however many and however long the
// headers of a hostile server, every value stays within the bound and valid
// UTF-8, including a cut through a multi-byte rune.
func TestBoundedResponseHeadersFlood(t *testing.T) {
	many := make([]string, 100000)
	for i := range many {
		many[i] = fmt.Sprintf("v%d", i)
	}
	h := http.Header{
		"Server":       many,
		"Location":     {strings.Repeat("é", 1000)},
		"Etag":         {strings.Repeat("€", 1000)},
		"Content-Type": {strings.Repeat("x", 511) + "€"},
	}
	got := BoundedResponseHeaders(h)
	if len(got) != 4 {
		t.Errorf("got %d headers; want 4", len(got))
	}
	for k, v := range got {
		if len(v) > MaxHeaderValueBytes {
			t.Errorf("%s is %d bytes; want at most %d", k, len(v), MaxHeaderValueBytes)
		}
		if !utf8.ValidString(v) {
			t.Errorf("%s is not valid UTF-8: %q", k, v)
		}
		if !strings.HasSuffix(v, "…") {
			t.Errorf("%s was cut without a mark: …%q", k, v[max(0, len(v)-10):])
		}
	}
	if !strings.HasPrefix(got["server"], "v0, v1, v2, ") {
		t.Errorf("server = %q…; want the first values kept in order", got["server"][:20])
	}
}

// TestBoundedResponseHeadersFromServer reads the summary of a real
// response from a loopback server, as the Fetch tool will.
func TestBoundedResponseHeadersFromServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Add("Server", "one")
		w.Header().Add("Server", "two")
		w.Header().Set("Set-Cookie", "session=secret")
		w.Header().Set("Last-Modified", "Mon, 30 Nov 2026 11:00:00 GMT")
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := BoundedResponseHeaders(resp.Header)
	want := map[string]string{
		"content-type":   "text/plain",
		"content-length": "5",
		"etag":           `"v1"`,
		"server":         "one, two",
		"last-modified":  "Mon, 30 Nov 2026 11:00:00 GMT",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
}

func ExampleBoundedResponseHeaders() {
	h := http.Header{}
	h.Set("Content-Type", "text/html")
	h.Set("Set-Cookie", "session=secret")
	h.Add("Server", "vite")
	fmt.Println(BoundedResponseHeaders(h))
	// Output: map[content-type:text/html server:vite]
}

// TestCanonicalResponseHeaders: the spelled-out canonical keys are what
// net/http's canonicalisation writes.
func TestCanonicalResponseHeaders(t *testing.T) {
	for i, name := range ResponseHeaders {
		if got, want := canonicalResponseHeaders[i], textproto.CanonicalMIMEHeaderKey(name); got != want {
			t.Errorf("canonicalResponseHeaders[%d] = %q; want %q", i, got, want)
		}
	}
}
