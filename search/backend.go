package search

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
)

// Query is one search as a backend sends it.
type Query struct {
	// Text is the query the model or the user wrote. It is sent to the
	// backend and to no one else: never logged, audited or put in an error.
	Text string
	// Count is how many results to ask for, 1 to [MaxResults].
	Count int
}

// Hit is one search result, in the backend's rank order. Every field is
// the backend's text, made safe for a model and a terminal (safetext) by
// the tool before it is returned.
type Hit struct {
	Rank    int    `json:"rank"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Backend is one search API. A backend knows its endpoint, how to ask it
// (method, URL, headers, body, its key) and how to read its answer; the
// tool does everything else (the decision, the guarded client, the bounds,
// the errors), the same way for every backend.
//
// A Backend is immutable and safe for concurrent use. It never prints its
// key: not in String, an error or a log line.
type Backend interface {
	// Name is the backend's name: "searxng", "brave", "tavily".
	Name() string
	// Endpoint is the URL every request goes to. Its origin (scheme, host
	// and port) is the call's one network requirement, decided by the
	// same rules as a fetch of that origin.
	Endpoint() *url.URL
	// Method is the HTTP method of every request (GET or POST): the
	// audit summary's "<METHOD> <host>".
	Method() string
	// NewRequest builds the request for q, on Endpoint's origin, without
	// a context (the tool binds it). Its error never carries the query.
	NewRequest(q Query) (*http.Request, error)
	// Parse reads a successful (2xx) answer's body into hits in rank
	// order. A body that is not of the backend's documented shape is an
	// error wrapping [ErrMalformed], never an empty success.
	Parse(body []byte) ([]Hit, error)
}

// ownBackend is what the package's backends have beyond [Backend]: a
// request bound to its context when built, and the shape of the answer
// (the tool then parses, cleans and renders without copying a text
// twice, [present]).
type ownBackend interface {
	request(ctx context.Context, q Query) (*http.Request, error)
	answer() *answerShape
}

// newRequest returns a request for endpoint bound to ctx, as
// http.NewRequestWithContext would, with a copy of endpoint as its URL
// (the one URL the request holds), for a backend to add its query to.
// The Host field is left empty: the URL's host is sent.
func newRequest(ctx context.Context, method string, endpoint *url.URL, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, "", body)
	if err != nil {
		return nil, err
	}
	*req.URL = *endpoint // the URL parsing "" made, this request's own
	return req, nil
}

// ErrMalformed is wrapped by every error of a backend's Parse: the answer
// is not JSON of the documented shape.
var ErrMalformed = errors.New("malformed search answer")

// secret holds an API key. It prints as "[redacted]" under every verb, so
// no %v of a backend, an error or a log attribute can show the key.
type secret string

func (secret) String() string   { return "[redacted]" }
func (secret) GoString() string { return "[redacted]" }

// malformed returns an error wrapping ErrMalformed with what is wrong (a
// field name, never a value).
func malformed(backend, what string) error {
	return &parseError{backend: backend, what: what}
}

type parseError struct{ backend, what string }

func (e *parseError) Error() string { return e.backend + ": " + ErrMalformed.Error() + ": " + e.what }
func (e *parseError) Unwrap() error { return ErrMalformed }

// describe is a backend's String and GoString: its name and endpoint,
// never its key (fmt does not call String on unexported fields, so the
// backends print themselves).
func describe(b Backend) string { return b.Name() + " " + b.Endpoint().String() }
