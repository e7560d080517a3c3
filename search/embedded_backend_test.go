package search_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/search"
)

// wrapped embeds *search.SearXNG and overrides NewRequest and Parse, as a
// caller's decorator would.
type wrapped struct{ *search.SearXNG }

func (w wrapped) NewRequest(q search.Query) (*http.Request, error) {
	req, err := w.SearXNG.NewRequest(q)
	if err == nil {
		req.Header.Set("X-Wrapper", "yes")
	}
	return req, err
}

func (w wrapped) Parse(body []byte) ([]search.Hit, error) {
	hits, err := w.SearXNG.Parse(body)
	for i := range hits {
		hits[i].Title = "WRAPPED " + hits[i].Title
	}
	return hits, err
}

func TestEmbeddedBackendOverridesHonoured(t *testing.T) {
	be := &backend{answer: jsonAnswer(200, `{"results": [{"url": "https://go.dev/", "title": "Go", "content": "c"}]}`)}
	port, sx, client := loopbackSearXNG(t, be)
	e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
	res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(client, wrapped{sx}, nil), `{"query": "golang"}`)
	out := output(t, res)
	be.mu.Lock()
	h := be.requests[len(be.requests)-1].Header.Get("X-Wrapper")
	be.mu.Unlock()
	if h != "yes" {
		t.Errorf("the wrapper's NewRequest was bypassed (no X-Wrapper header)")
	}
	if !strings.HasPrefix(out.Results[0].Title, "WRAPPED") {
		t.Errorf("the wrapper's Parse was bypassed: title %q", out.Results[0].Title)
	}
}

// A caller's client without Timeout; the backend sends its head then stalls the body.
func TestBodyStallBounded(t *testing.T) {
	stop := make(chan struct{})
	be := &backend{answer: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		w.Write([]byte(`{"results": [`))
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}}
	defer close(stop)
	port, sx, client := loopbackSearXNG(t, be)
	c := *client
	c.Timeout = 0
	e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
	start := time.Now()
	res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(&c, sx, &search.Options{Timeout: 300 * time.Millisecond}), `{"query": "golang"}`)
	el := time.Since(start)
	if res.Reason != refusal.Timeout || el > 3*time.Second {
		t.Errorf("reason %s (%s) after %s; want timeout soon", res.Reason, res.Message, el)
	}
	t.Logf("%s: %s after %s", res.Reason, res.Message, el)
}

// A caller's client whose Timeout is shorter than Options.Timeout bounds
// the call, and the refusal names that bound; a backend that never sends
// its head is cut there.
func TestClientTimeoutShorterBounds(t *testing.T) {
	stop := make(chan struct{})
	be := &backend{answer: func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}}
	defer close(stop)
	port, sx, client := loopbackSearXNG(t, be)
	c := *client
	c.Timeout = 200 * time.Millisecond
	e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
	start := time.Now()
	res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(&c, sx, &search.Options{Timeout: time.Minute}), `{"query": "golang"}`)
	el := time.Since(start)
	if res.Reason != refusal.Timeout || el < 200*time.Millisecond || el > 5*time.Second {
		t.Errorf("reason %s (%s) after %s; want timeout after the client's 200ms", res.Reason, res.Message, el)
	}
	if !strings.Contains(res.Message, "within 200ms") {
		t.Errorf("message %q; want it to name the 200ms bound", res.Message)
	}
}
