package search

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// TestParseIsStrict: the answer is read in one strict pass. What
// encoding/json would let through (a duplicate key, invalid UTF-8, a key
// in another case, trailing data) is malformed or ignored, never a hit.
func TestParseIsStrict(t *testing.T) {
	b := backends(t)
	tests := []struct {
		name, backend, body string
		want                []Hit  // when the answer is accepted
		what                string // else, in the error
	}{
		{"duplicate results", "searxng", `{"results": [], "results": [{"url": "https://a.example/"}]}`, nil, "duplicate key"},
		{"duplicate key in a member not read", "searxng", `{"results": [], "infoboxes": [{"a": 1, "a": 2}]}`, nil, "duplicate key"},
		{"duplicate url", "tavily", `{"results": [{"url": "https://a.example/", "url": "https://b.example/"}]}`, nil, "duplicate key"},
		{"invalid UTF-8 in a member not read", "searxng", "{\"results\": [], \"q\": \"\xff\"}", nil, "not valid UTF-8"},
		{"trailing data", "searxng", `{"results": []} {}`, nil, "not valid JSON"},
		{"cut", "brave", `{"type": "search", "web": {"results": [{"url": "https://a.example/"}`, nil, "not valid JSON"},
		{"too deep", "searxng", `{"results": [], "x": ` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, nil, "nested too deeply"},
		{"deep enough", "searxng", `{"results": [], "x": ` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`, []Hit{}, ""},
		{"Results is not results", "searxng", `{"Results": [{"url": "https://a.example/"}]}`, nil, "no results array"},
		{"URL is not url", "searxng", `{"results": [{"URL": "https://a.example/", "title": "t"}]}`, []Hit{{Title: "t"}}, ""},
		{"a null result is an empty hit", "tavily", `{"results": [null, {"url": "https://a.example/"}]}`, []Hit{{}, {URL: "https://a.example/"}}, ""},
		{"null members are empty", "searxng", `{"results": [{"url": "https://a.example/", "title": null, "content": null}]}`, []Hit{{URL: "https://a.example/"}}, ""},
		{"members not read may be anything", "searxng", `{"results": [{"url": "https://a.example/", "score": [1, {"x": null}], "engine": {}}], "number_of_results": 1e3}`, []Hit{{URL: "https://a.example/"}}, ""},
		{"escapes are decoded", "brave", `{"type": "searc\u0068", "web": {"results": [{"title": "caf\u00e9 \"x\"", "url": "https:\/\/a.example\/", "description": "\ud83d\ude00"}]}}`, []Hit{{Title: `café "x"`, URL: "https://a.example/", Snippet: "😀"}}, ""},
		{"no web", "brave", `{"type": "search", "news": {"results": [1]}}`, []Hit{}, ""},
		{"web null", "brave", `{"type": "search", "web": null}`, []Hit{}, ""},
		{"web not an object", "brave", `{"type": "search", "web": []}`, nil, "web is not an object"},
		{"web without results", "brave", `{"type": "search", "web": {"type": "search"}}`, nil, "web has no results array"},
		{"web.results null", "brave", `{"type": "search", "web": {"results": null}}`, nil, "web.results is not an array"},
		{"type after web", "brave", `{"web": {"results": []}, "type": "search"}`, []Hit{}, ""},
		{"type missing", "brave", `{"web": {"results": []}}`, nil, `no "type": "search"`},
		{"type not a string", "brave", `{"type": 1, "web": {"results": []}}`, nil, `no "type": "search"`},
		{"results at the top level of brave are not read", "brave", `{"type": "search", "results": [{"url": "https://a.example/"}]}`, []Hit{}, ""},
		{"web.results in searxng are not read", "searxng", `{"results": [], "web": {"results": [{"url": "https://a.example/"}]}}`, []Hit{}, ""},
		{"a result not an object", "searxng", `{"results": ["https://a.example/"]}`, nil, "a result in results is not an object"},
		{"a member not a string", "brave", `{"type": "search", "web": {"results": [{"description": 5}]}}`, nil, "a result's description is not a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := b[tc.backend].Parse([]byte(tc.body))
			if tc.what != "" {
				if err == nil || !errors.Is(err, ErrMalformed) || got != nil {
					t.Fatalf("Parse = %v, %v; want nil and an error wrapping ErrMalformed", got, err)
				}
				if !strings.Contains(err.Error(), tc.what) || !strings.HasPrefix(err.Error(), tc.backend+": ") {
					t.Errorf("error %q; want %q from %s", err, tc.what, tc.backend)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("hits (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseErrorQuotesNothing: a parse error names a member, never a key
// or value of the answer, which may echo the query.
func TestParseErrorQuotesNothing(t *testing.T) {
	const secret = "sk-live-query-secret"
	for name, be := range backends(t) {
		for _, body := range []string{
			`{"type": "search", "results": [], "` + secret + `": 1, "` + secret + `": 2}`,
			`{"type": "search", "` + secret + `": [}`,
			`{"type": "` + secret + `"}`,
			`{"type": "search", "web": {"results": [{"url": ["` + secret + `"]}]}, "results": [{"url": ["` + secret + `"]}]}`,
		} {
			_, err := be.Parse([]byte(body))
			if err == nil {
				t.Errorf("%s.Parse(%q) accepted", name, body)
				continue
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s.Parse error %q quotes the answer", name, err)
			}
		}
	}
}

// referenceParse is how the backends read an answer before the one-pass
// parser: encoding/json into the documented shape. FuzzParseAgainstJSON
// holds the parser to it wherever encoding/json is not lenient.
func referenceParse(backend string, body []byte) ([]Hit, bool) {
	type result struct {
		Title       *string `json:"title"`
		URL         *string `json:"url"`
		Content     *string `json:"content"`
		Description *string `json:"description"`
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	var list *[]result
	if backend == "brave" {
		var a struct {
			Type *string `json:"type"`
			Web  *struct {
				Results *[]result `json:"results"`
			} `json:"web"`
		}
		if json.Unmarshal(body, &a) != nil || a.Type == nil || *a.Type != "search" {
			return nil, false
		}
		if a.Web == nil {
			return []Hit{}, true
		}
		list = a.Web.Results
	} else {
		var a struct {
			Results *[]result `json:"results"`
		}
		if json.Unmarshal(body, &a) != nil {
			return nil, false
		}
		list = a.Results
	}
	if list == nil {
		return nil, false
	}
	hits := []Hit{}
	for i, r := range *list {
		if i == maxAnswerHits { // the first maxAnswerHits are read
			break
		}
		snippet := r.Content
		if backend == "brave" {
			snippet = r.Description
		}
		hits = append(hits, Hit{Title: deref(r.Title), URL: deref(r.URL), Snippet: deref(snippet)})
	}
	return hits, true
}

// lenientFor reports whether encoding/json reads body differently from a
// strict reader: invalid UTF-8 (replaced), a duplicate key (the last
// wins), or a key that matches a read member only case-insensitively.
func lenientFor(body []byte) bool {
	names := []string{"type", "web", "results", "title", "url", "content", "description"}
	folded := false
	err := (&strictjson.Walker{MaxDepth: 1 << 20}).Walk(body, func(p strictjson.Path, _ strictjson.Value) error {
		if len(p) > 0 && p[len(p)-1].IsKey() {
			k := p[len(p)-1].Key
			for _, n := range names {
				if k != n && strings.EqualFold(k, n) {
					folded = true
				}
			}
		}
		return nil
	})
	return folded || errors.Is(err, strictjson.ErrInvalidUTF8) || errors.Is(err, strictjson.ErrDuplicateKey)
}

// FuzzParseAgainstJSON: on every answer encoding/json reads strictly, the
// one-pass parser accepts exactly what encoding/json into the documented
// shape accepts, with the same hits (nesting within the bound).
func FuzzParseAgainstJSON(f *testing.F) {
	for _, seed := range []string{
		searxngDoc, braveDoc, tavilyDoc,
		`{"results": [null, {"url": null}]}`, `{"type": "search", "web": null}`, `{"type": "search", "web": {"results": {}}}`,
		`{"results": [{"url": "\u00e9\ud800"}]}`, `{"results": [], "results": []}`, `{"RESULTS": []}`, `{"results": [[]]}`,
		`{"results": [{"title": 1}]}`, `{"type": "search"} x`, `{"results": [] , "a": [[[[{}]]]]}`,
	} {
		f.Add([]byte(seed))
	}
	bs := backends(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if lenientFor(body) || strictjson.Depth(body) >= answerDoc.MaxDepth {
			return
		}
		for name, b := range bs {
			got, err := b.Parse(body)
			want, ok := referenceParse(name, body)
			if (err == nil) != ok {
				t.Fatalf("%s.Parse(%q) error %v; encoding/json accepts: %v", name, body, err, ok)
			}
			if d := cmp.Diff(want, got); ok && d != "" {
				t.Fatalf("%s.Parse(%q) hits (-encoding/json +got):\n%s", name, body, d)
			}
		}
	})
}
