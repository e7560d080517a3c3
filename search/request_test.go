package search

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestRequestQueryIsValuesEncode: the query strings the backends build by
// hand are url.Values.Encode's, byte for byte.
func TestRequestQueryIsValuesEncode(t *testing.T) {
	brave, err := NewBrave("", "k")
	if err != nil {
		t.Fatal(err)
	}
	sx, err := NewSearXNG("http://127.0.0.1:8888")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{
		{Text: "go generics", Count: 10},
		{Text: "a&b=c?d#e/f+g%h", Count: 1},
		{Text: "ünïcode 日本 \u202e", Count: 20},
		{Text: "  spaces\tand\nlines ", Count: 3},
	} {
		t.Run(q.Text, func(t *testing.T) {
			cases := []struct {
				b    Backend
				want url.Values
			}{
				{brave, url.Values{"q": {q.Text}, "count": {strconv.Itoa(q.Count)}}},
				{sx, url.Values{"q": {q.Text}, "format": {"json"}, "pageno": {"1"}}},
			}
			for _, c := range cases {
				req, err := c.b.NewRequest(q)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := req.URL.RawQuery, c.want.Encode(); got != want {
					t.Errorf("%s: query %q; want %q", c.b.Name(), got, want)
				}
			}
		})
	}
}

// TestReadBodyDeclaredLength: the declared length sizes the buffer only;
// what is read and the cap are the same whatever it says.
func TestReadBodyDeclaredLength(t *testing.T) {
	const limit = 100
	cases := []struct {
		name     string
		body     int
		declared int64
		tooLarge bool
	}{
		{"exact", 50, 50, false},
		{"unknown", 50, -1, false},
		{"declared short", 80, 10, false},
		{"declared long", 10, 90, false},
		{"at the cap", limit, limit, false},
		{"over the cap, declared", limit + 1, limit + 1, true},
		{"over the cap, declared short", 1000, 20, true},
		{"over the cap, unknown", 5000, -1, true},
		{"empty", 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Repeat("x", tc.body)
			got, err := readBody(nil, strings.NewReader(body), tc.declared, limit)
			if tc.tooLarge {
				if err != errTooLarge {
					t.Fatalf("got %d bytes, %v; want errTooLarge", len(got), err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, []byte(body)) {
				t.Fatalf("got %d bytes, %v; want the %d bytes", len(got), err, tc.body)
			}
		})
	}
}

// TestReadBodyReusesBuffer: a pooled buffer's storage is read into when it
// is large enough, whatever it held, and replaced when the declared length
// needs more.
func TestReadBodyReusesBuffer(t *testing.T) {
	buf := bytes.Repeat([]byte("y"), 100)[:100:100]
	buf = append(buf, make([]byte, 3996)...)[:100]
	got, err := readBody(buf, strings.NewReader("abc"), -1, 1<<20)
	if err != nil || string(got) != "abc" {
		t.Fatalf("got %q, %v; want abc", got, err)
	}
	if &got[0] != &buf[0] {
		t.Errorf("the buffer's storage was not reused")
	}
	long := strings.Repeat("z", 5000)
	got, err = readBody(buf, strings.NewReader(long), int64(len(long)), 1<<20)
	if err != nil || string(got) != long {
		t.Fatalf("got %d bytes, %v; want the 5000", len(got), err)
	}
	if cap(got) != len(long)+1 {
		t.Errorf("cap %d; want one buffer of the declared length and a byte", cap(got))
	}
}
