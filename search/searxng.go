package search

import (
	"context"
	"net/http"
	"net/url"
)

// SearXNG is a SearXNG instance's JSON API (GET /search?q=…&format=json),
// the self-hosted, open-source default. The instance must enable the json
// format (search.formats in its settings.yml); one that does not answers
// 403, reported as search_backend_failed.
type SearXNG struct {
	endpoint *url.URL
}

// NewSearXNG returns the backend of the instance at baseURL
// ("http://127.0.0.1:8888", "https://searx.example.org/searxng"); "/search"
// is appended unless the path already ends with it. An error wraps
// [ErrConfig].
func NewSearXNG(baseURL string) (*SearXNG, error) {
	u, err := parseEndpoint(baseURL)
	if err != nil {
		return nil, err
	}
	return &SearXNG{endpoint: withPath(u, "/search")}, nil
}

// Name implements [Backend].
func (*SearXNG) Name() string { return "searxng" }

// Endpoint implements [Backend].
func (s *SearXNG) Endpoint() *url.URL { c := *s.endpoint; return &c }

// Method implements [Backend].
func (*SearXNG) Method() string { return http.MethodGet }

// NewRequest implements [Backend]. SearXNG has no result count parameter:
// it answers one page, which the tool cuts at the call's count.
func (s *SearXNG) NewRequest(q Query) (*http.Request, error) {
	return s.request(context.Background(), q)
}

// request is NewRequest bound to ctx.
func (s *SearXNG) request(ctx context.Context, q Query) (*http.Request, error) {
	req, err := newRequest(ctx, http.MethodGet, s.endpoint, nil)
	if err != nil {
		return nil, err
	}
	// url.Values{"q", "format", "pageno"}.Encode()'s bytes (keys
	// sorted), without its map.
	req.URL.RawQuery = "format=json&pageno=1&q=" + url.QueryEscape(q.Text)
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// searxngAnswer is the part of SearXNG's JSON answer the tool reads
// (docs.searxng.org, "Search API"): {"query": …, "number_of_results": …,
// "results": [{"url", "title", "content", "engine", "score", …}],
// "answers", "suggestions", "infoboxes", "unresponsive_engines": [[name,
// reason], …], …}. results is required; unresponsive_engines is counted.
var searxngAnswer = answerShape{backend: "searxng", api: "search API", results: "results", title: "title", url: "url", snippet: "content", failed: "unresponsive_engines"}

// Parse implements [Backend].
func (*SearXNG) Parse(body []byte) ([]Hit, error) { return searxngAnswer.hits(body) }

func (*SearXNG) answer() *answerShape { return &searxngAnswer }

// String names the backend and its endpoint, never a key.
func (s *SearXNG) String() string { return describe(s) }

// GoString is String: a %#v shows no key either.
func (s *SearXNG) GoString() string { return describe(s) }
