package search

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
)

// TavilyEndpoint is the Tavily Search API's search endpoint.
const TavilyEndpoint = "https://api.tavily.com/search"

// Tavily is the Tavily Search API (POST /search with a JSON body, the key
// as "Authorization: Bearer KEY"). Its audit summary is "POST
// api.tavily.com": the method it really uses.
type Tavily struct {
	endpoint *url.URL
	key      secret
}

// NewTavily returns the Tavily backend with its API key; endpoint "" is
// [TavilyEndpoint]. An error wraps [ErrConfig].
func NewTavily(endpoint, key string) (*Tavily, error) {
	if endpoint == "" {
		endpoint = TavilyEndpoint
	}
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if err := checkKey("tavily", key); err != nil {
		return nil, err
	}
	return &Tavily{endpoint: u, key: secret(key)}, nil
}

// Name implements [Backend].
func (*Tavily) Name() string { return "tavily" }

// Endpoint implements [Backend].
func (t *Tavily) Endpoint() *url.URL { c := *t.endpoint; return &c }

// Method implements [Backend].
func (*Tavily) Method() string { return http.MethodPost }

// NewRequest implements [Backend]: {"query", "max_results",
// "search_depth": "basic"}; no answer, images or raw content are asked for.
func (t *Tavily) NewRequest(q Query) (*http.Request, error) {
	return t.request(context.Background(), q)
}

// request is NewRequest bound to ctx.
func (t *Tavily) request(ctx context.Context, q Query) (*http.Request, error) {
	body, err := json.Marshal(struct {
		Query       string `json:"query"`
		MaxResults  int    `json:"max_results"`
		SearchDepth string `json:"search_depth"`
	}{q.Text, q.Count, "basic"})
	if err != nil {
		return nil, err
	}
	req, err := newRequest(ctx, http.MethodPost, t.endpoint, nil)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+string(t.key))
	return req, nil
}

// tavilyAnswer is the part of Tavily's answer the tool reads (Tavily API
// reference, POST /search): {"query": …, "answer": …, "images": […],
// "results": [{"title", "url", "content", "score", "raw_content"}],
// "response_time": …}. results is required.
var tavilyAnswer = answerShape{backend: "tavily", api: "search API", results: "results", title: "title", url: "url", snippet: "content"}

// Parse implements [Backend].
func (*Tavily) Parse(body []byte) ([]Hit, error) { return tavilyAnswer.hits(body) }

func (*Tavily) answer() *answerShape { return &tavilyAnswer }

// String names the backend and its endpoint, never a key.
func (t *Tavily) String() string { return describe(t) }

// GoString is String: a %#v shows no key either.
func (t *Tavily) GoString() string { return describe(t) }
