package search_test

import (
	"context"
	"fmt"
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

// TestErrorStatusWhateverItsBody: an error status is named by its status
// (and a 429 keeps its Retry-After) whatever body comes with it: a body
// over the answer cap is not response_too_large, and a body that stalls
// is not a timeout. The body of an error is never read: it is not quoted.
func TestErrorStatusWhateverItsBody(t *testing.T) {
	big := strings.Repeat("x", 10000) // over the 4096-byte cap below
	stall := func(status int, retry string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if retry != "" {
				w.Header().Set("Retry-After", retry)
			}
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(status)
			fmt.Fprint(w, "<html>")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		reason  refusal.Code
		message []string
	}{
		{"429 with a large body", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(429)
			fmt.Fprint(w, big)
		}, refusal.SearchRateLimited, []string{"HTTP 429 Too Many Requests", "retry after 30s"}},
		{"503 with a large body", jsonAnswer(503, big), refusal.SearchBackendFailed, []string{"HTTP 503 Service Unavailable"}},
		{"403 with a large body", jsonAnswer(403, big), refusal.SearchBackendFailed, []string{"HTTP 403 Forbidden"}},
		{"502 whose body stalls", stall(502, ""), refusal.SearchBackendFailed, []string{"HTTP 502 Bad Gateway"}},
		{"429 whose body stalls", stall(429, "7"), refusal.SearchRateLimited, []string{"HTTP 429", "retry after 7s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPublic(t, tc.answer)
			e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:443"}})
			s := search.New(p.client, mustBrave(t), &search.Options{Timeout: 2 * time.Second, MaxResponseBytes: 4096})
			res := e.broker(risk.Standard, broker.NonInteractive()).Call(context.Background(), s, `{"query": "go generics"}`)
			if !res.IsError || res.Reason != tc.reason {
				t.Fatalf("result = %v %s: %s; want error %s", res.IsError, res.Reason, res.Message, tc.reason)
			}
			for _, m := range tc.message {
				if !strings.Contains(res.Message, m) {
					t.Errorf("message %q does not say %q", res.Message, m)
				}
			}
			if line := lastAudit(t, e.ws); line.Outcome != string(tc.reason) {
				t.Errorf("audit outcome %s; want %s", line.Outcome, tc.reason)
			}
		})
	}
}
