package search

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// BraveEndpoint is the Brave Search API's web search endpoint.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// Brave is the Brave Search API (GET /res/v1/web/search?q=…&count=…, the
// key in the X-Subscription-Token header).
type Brave struct {
	endpoint *url.URL
	key      secret
}

// NewBrave returns the Brave backend with its subscription key; endpoint
// "" is [BraveEndpoint]. An error wraps [ErrConfig].
func NewBrave(endpoint, key string) (*Brave, error) {
	if endpoint == "" {
		endpoint = BraveEndpoint
	}
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if err := checkKey("brave", key); err != nil {
		return nil, err
	}
	return &Brave{endpoint: u, key: secret(key)}, nil
}

// Name implements [Backend].
func (*Brave) Name() string { return "brave" }

// Endpoint implements [Backend].
func (b *Brave) Endpoint() *url.URL { c := *b.endpoint; return &c }

// Method implements [Backend].
func (*Brave) Method() string { return http.MethodGet }

// NewRequest implements [Backend].
func (b *Brave) NewRequest(q Query) (*http.Request, error) {
	return b.request(context.Background(), q)
}

// request is NewRequest bound to ctx.
func (b *Brave) request(ctx context.Context, q Query) (*http.Request, error) {
	req, err := newRequest(ctx, http.MethodGet, b.endpoint, nil)
	if err != nil {
		return nil, err
	}
	// url.Values{"q", "count"}.Encode()'s bytes (keys sorted), without
	// its map.
	req.URL.RawQuery = "count=" + strconv.Itoa(q.Count) + "&q=" + url.QueryEscape(q.Text)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", string(b.key))
	return req, nil
}

// braveAnswer is the part of the WebSearchApiResponse the tool reads
// (Brave Search API documentation): {"type": "search", "query":
// {"original": …}, "web": {"type": "search", "results": [{"title", "url",
// "description", "age", …}]}, "news", "videos", …}. An answer without web
// results has no "web" member; its "type" must still be "search".
var braveAnswer = answerShape{backend: "brave", api: "web search API", typ: "search", within: "web", results: "results", title: "title", url: "url", snippet: "description"}

// Parse implements [Backend].
func (*Brave) Parse(body []byte) ([]Hit, error) { return braveAnswer.hits(body) }

func (*Brave) answer() *answerShape { return &braveAnswer }

// checkKey refuses an empty key, or one that could not travel in a header.
// The error never quotes the key.
func checkKey(backend, key string) error {
	if key == "" {
		return fmt.Errorf("%w: %s needs an API key (a key file)", ErrConfig, backend)
	}
	if len(key) > 512 {
		return fmt.Errorf("%w: the %s key is longer than 512 bytes", ErrConfig, backend)
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return fmt.Errorf("%w: the %s key must be printable ASCII without spaces", ErrConfig, backend)
		}
	}
	return nil
}

// String names the backend and its endpoint, never a key.
func (b *Brave) String() string { return describe(b) }

// GoString is String: a %#v shows no key either.
func (b *Brave) GoString() string { return describe(b) }
