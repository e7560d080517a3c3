package search

import (
	"errors"
	"testing"
)

// FuzzParse feeds every backend's parser arbitrary bodies: it must never
// panic, and it either returns hits or an error wrapping ErrMalformed —
// never both, never another error; present, the tool's path, is Parse,
// clean and Render, keeping nothing of the body.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		searxngDoc, braveDoc, tavilyDoc, // the documented shapes
		`{"type": "search"}`, `{"results": []}`, `{"results": null}`, // edges of "present"
		`{"results": [{"url": "\u0000"}]}`, `[` + `[` + `]]`, `{"web": {"results": [{}]}, "type": "search"}`,
		"\xff\xfe", `{"results": [` + `{"title": "` + "\u202e" + `"}]}`,
	} {
		f.Add([]byte(seed))
	}
	bs := backends(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for name, b := range bs {
			hits, err := b.Parse(body)
			if err != nil {
				if !errors.Is(err, ErrMalformed) || hits != nil {
					t.Fatalf("%s: hits %v, err %v; want nil hits and ErrMalformed", name, hits, err)
				}
				continue
			}
			if hits == nil {
				t.Fatalf("%s: nil hits without an error", name)
			}
			out, _ := clean(hits, MaxResults)
			for _, h := range out {
				if !webURL(h.URL) {
					t.Fatalf("%s: kept a hit without a web URL: %q", name, h.URL)
				}
			}
			_ = Render(Output{Backend: name, Results: out, Count: len(out)})
		}
		for name, b := range bs {
			for _, count := range []int{1, DefaultResults} {
				checkPresent(t, name, b, body, count)
			}
		}
	})
}

// FuzzConfig: search.json's parser never panics, and what it accepts has
// a backend.
func FuzzConfig(f *testing.F) {
	for _, seed := range []string{
		`{"schema_version": 1, "backend": "brave"}`,
		`{"schema_version": 1, "backend": "searxng", "url": "http://127.0.0.1:8888"}`,
		`{"schema_version": 1, "backend": "tavily", "key_file": "/etc/k"}`,
		`{"schema_version": 2, "backend": "brave"}`, `{"backend": "brave", "backend": "x"}`, `{"Backend": "brave"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err == nil && c.Backend == "" {
			t.Fatalf("accepted %q without a backend", data)
		}
		if err != nil && !errors.Is(err, ErrConfig) {
			t.Fatalf("error %v does not wrap ErrConfig", err)
		}
	})
}

// FuzzArgs: the argument decoder never panics and never accepts a query
// it should refuse.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{`{"query": "x"}`, `{"query": "x", "count": 3}`, `{"query": "\n"}`, `{"query": "a", "count": 1e1}`, `{"query": "\ud800"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := decodeArgs(s)
		if err != nil {
			return
		}
		if a.Query == "" || (a.HasCount && (a.Count < 1 || a.Count > MaxResults)) {
			t.Fatalf("accepted %q as %+v", s, a)
		}
	})
}
