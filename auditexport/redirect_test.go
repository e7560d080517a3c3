package auditexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCollectorRedirectStaysOnTheCollector: a collector's redirect is
// followed only to the same scheme, host and port as the endpoint. A
// redirect elsewhere (another port of the same loopback address stands for
// another host) is not followed, with the exporter's own client or one
// given in Options: the records, and the request itself, never reach a
// server other than the configured collector; the batch is counted failed.
func TestCollectorRedirectStaysOnTheCollector(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	defer other.Close()

	for _, tc := range []struct {
		name     string
		status   int
		location func(self string) string // the redirect's target
		client   bool                     // Options.Client given
		want     Stats
	}{
		{name: "307 to another host", status: 307, location: func(string) string { return other.URL + "/v1/logs" }, want: Stats{Failed: 5}},
		{name: "308 to another host", status: 308, location: func(string) string { return other.URL + "/v1/logs" }, want: Stats{Failed: 5}},
		{name: "302 to another host", status: 302, location: func(string) string { return other.URL + "/v1/logs" }, want: Stats{Failed: 5}},
		{name: "307 to another host, client given", status: 307, location: func(string) string { return other.URL + "/v1/logs" }, client: true, want: Stats{Failed: 5}},
		{name: "307 on the collector", status: 307, location: func(self string) string { return self + "/moved/v1/logs" }, want: Stats{Exported: 5}},
		{name: "307 on the collector, client given", status: 307, location: func(self string) string { return self + "/moved/v1/logs" }, client: true, want: Stats{Exported: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			elsewhere.Store(0)
			rcv := &receiver{}
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/logs" {
					io.Copy(io.Discard, r.Body)
					http.Redirect(w, r, tc.location(srv.URL), tc.status)
					return
				}
				rcv.ServeHTTP(w, r)
			}))
			defer srv.Close()
			o := &Options{Endpoint: srv.URL, BatchSize: 5, Interval: time.Hour, Timeout: 2 * time.Second}
			if tc.client {
				o.Client = &http.Client{Timeout: 2 * time.Second}
			}
			x, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				x.Export(entry(i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := x.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if n := elsewhere.Load(); n != 0 {
				t.Errorf("%d requests reached a server other than the collector", n)
			}
			if got := x.Stats(); got != tc.want {
				t.Errorf("stats = %+v; want %+v", got, tc.want)
			}
			if got := len(rcv.got()); got != int(tc.want.Exported) {
				t.Errorf("%d records arrived at the collector's new path; want %d", got, tc.want.Exported)
			}
		})
	}
}

// TestCollectorAnswerHeadBounded: the exporter's own client reads at most
// maxResponseHead bytes of a collector's answer head, as it reads at most
// maxResponse of its body: a collector sending a larger head (here in one
// header) fails the batch instead of having it buffered (the transport's
// default bound is 10 MiB a request).
func TestCollectorAnswerHeadBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		head int
		want Stats
	}{
		{"small head", 1 << 10, Stats{Exported: 5}},
		{"head past the bound", 2 * maxResponseHead, Stats{Failed: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("X-Padding", strings.Repeat("a", tc.head))
				w.WriteHeader(200)
			}))
			defer srv.Close()
			x, err := New(&Options{Endpoint: srv.URL, BatchSize: 5, Interval: time.Hour, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				x.Export(entry(i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := x.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if got := x.Stats(); got != tc.want {
				t.Errorf("stats = %+v; want %+v", got, tc.want)
			}
		})
	}
}
