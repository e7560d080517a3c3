package hostile

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// get fetches path from a fresh server for h with a client that neither
// follows redirects nor decompresses, and returns the response with its
// body open; the server and the connection are closed when the test ends.
func get(t *testing.T, h http.Handler, path string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	tr := &http.Transport{DisableCompression: true}
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		resp.Body.Close()
		tr.CloseIdleConnections()
		srv.Close()
	})
	return resp
}

func TestEndlessBody(t *testing.T) {
	resp := get(t, EndlessBody(), "/")
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<20))
	if err != nil || n != 4<<20 {
		t.Errorf("read %d bytes, %v; want 4 MiB and more to come", n, err)
	}
	if resp.ContentLength != -1 {
		t.Errorf("Content-Length %d; want none", resp.ContentLength)
	}
}

func TestGzipBomb(t *testing.T) {
	resp := get(t, GzipBomb(1<<20), "/")
	wire, _ := io.ReadAll(resp.Body)
	if len(wire) > 2<<10 || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("%d bytes on the wire, encoding %q; want about 1 KiB of gzip", len(wire), resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(wire))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil || n != 1<<20 {
		t.Errorf("inflated to %d bytes, %v; want 1 MiB", n, err)
	}
}

func TestTrickle(t *testing.T) {
	resp := get(t, Trickle(20*time.Millisecond), "/")
	start := time.Now()
	buf := make([]byte, 3)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("3 bytes in %v; want them one per 20ms", d)
	}
}

func TestHeaderFlood(t *testing.T) {
	resp := get(t, HeaderFlood(50, 1000), "/")
	n := 0
	for k, v := range resp.Header {
		if strings.HasPrefix(k, "X-Flood-") && len(v[0]) == 1000 {
			n++
		}
	}
	if n != 50 {
		t.Errorf("%d flood headers; want 50", n)
	}
}

func TestRedirects(t *testing.T) {
	tests := []struct {
		name, path   string
		h            http.Handler
		wantCode     int
		wantLocation string
	}{
		{"loop first", "/a", RedirectLoop(), http.StatusFound, "/a?hop=1"},
		{"loop next", "/a?hop=7", RedirectLoop(), http.StatusFound, "/a?hop=8"},
		{"to absolute 307", "/", RedirectTo("http://127.0.0.2:9/x", http.StatusTemporaryRedirect), 307, "http://127.0.0.2:9/x"},
		{"to relative 308", "/", RedirectTo("/y", http.StatusPermanentRedirect), 308, "/y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, tc.h, tc.path)
			if resp.StatusCode != tc.wantCode || resp.Header.Get("Location") != tc.wantLocation {
				t.Errorf("got %d %q; want %d %q", resp.StatusCode, resp.Header.Get("Location"), tc.wantCode, tc.wantLocation)
			}
		})
	}
}

func TestResetMidBody(t *testing.T) {
	resp := get(t, ResetMidBody(1<<20, 1000), "/")
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n != 1000 {
		t.Errorf("read %d bytes, err %v; want 1000 bytes and then an error", n, err)
	}
}

func TestPageAndRecorder(t *testing.T) {
	resp := get(t, Page("text/plain", []byte("hi")), "/")
	if b, _ := io.ReadAll(resp.Body); string(b) != "hi" || resp.ContentLength != 2 {
		t.Errorf("Page: body %q length %d; want hi, 2", b, resp.ContentLength)
	}
	rec := &Recorder{Status: http.StatusTeapot}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r, err := http.Post(srv.URL+"/p", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	got := rec.Requests()
	if r.StatusCode != http.StatusTeapot || len(got) != 1 || got[0].Method != "POST" || got[0].Path != "/p" || string(got[0].Body) != "body" {
		t.Errorf("Recorder: status %d, requests %+v; want 418 and one POST /p with its body", r.StatusCode, got)
	}
	http.DefaultClient.CloseIdleConnections()
}
