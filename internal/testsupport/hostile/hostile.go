// Package hostile provides small, named HTTP handlers that misbehave the
// way real servers do when they want to hurt a client: bodies that never
// end, compression bombs, bytes that trickle in, header floods, redirect
// loops and chains, and connections reset in the middle of a body.
//
// They are test helpers for every ocfetch package that talks HTTP (fetch,
// proxy, egress). Each handler returns promptly once the client goes away
// (its request context is done or a write fails), so a test that closes its
// httptest.Server and the client's idle connections can check with goleak
// that nothing outlives the call.
//
//	srv := httptest.NewServer(hostile.EndlessBody())
//	defer srv.Close()
//	// fetch srv.URL with a body cap and check that the read stops there.
package hostile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// chunk is what EndlessBody writes on every iteration: 32 KiB of text.
var chunk = bytes.Repeat([]byte("endless body "), 32<<10/13)

// EndlessBody answers 200 text/plain with a body that never ends: no
// Content-Length, chunked encoding, written until the client disconnects.
func EndlessBody() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// GzipBomb answers 200 text/plain with Content-Encoding: gzip and a body that
// is small on the wire and inflates to inflated bytes of zeros (deflate
// reaches about 1000:1, so 1 MiB inflated is about 1 KiB on the wire). The
// compressed bytes are computed once, when GzipBomb is called.
func GzipBomb(inflated int64) http.Handler {
	payload := GzipBombBytes(inflated)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(payload)
	})
}

// GzipBombBytes returns a gzip stream that inflates to inflated zero bytes.
func GzipBombBytes(inflated int64) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 64<<10)
	for n := inflated; n > 0; {
		k := min(n, int64(len(zeros)))
		_, _ = zw.Write(zeros[:k])
		n -= k
	}
	_ = zw.Close()
	return buf.Bytes()
}

// Trickle answers 200 text/plain and then writes one byte every interval,
// flushing each, until the client disconnects. A client without a deadline
// would wait forever.
func Trickle(interval time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		flush(w)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-t.C:
				if _, err := w.Write([]byte{'.'}); err != nil {
					return
				}
				flush(w)
			}
		}
	})
}

// HeaderFlood answers 200 with n response headers of size bytes each
// (X-Flood-0 … X-Flood-<n-1>), so the header block is about n*(size+16)
// bytes: past any sane client limit for large n*size.
func HeaderFlood(n, size int) http.Handler {
	value := strings.Repeat("f", size)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for i := range n {
			h["X-Flood-"+strconv.Itoa(i)] = []string{value}
		}
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "flooded")
	})
}

// RedirectLoop answers every request with 302 to the same path with a hop
// counter in the query (?hop=N+1), so the chain never ends and every
// Location is distinct, as a loop built to defeat a visited-set check.
func RedirectLoop() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hop, _ := strconv.Atoi(r.URL.Query().Get("hop"))
		http.Redirect(w, r, fmt.Sprintf("%s?hop=%d", r.URL.Path, hop+1), http.StatusFound)
	})
}

// RedirectTo answers every request with the redirect status code (301, 302,
// 303, 307 or 308) to location, which may be absolute or relative.
func RedirectTo(location string, code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(code)
	})
}

// ResetMidBody answers 200 text/plain with a Content-Length of declared
// bytes, writes sent bytes of it (sent < declared) and then resets the TCP
// connection (SO_LINGER 0, then close), so the client sees ECONNRESET or an
// unexpected EOF in the middle of the body.
func ResetMidBody(declared, sent int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "hijacking not supported", http.StatusInternalServerError)
			return
		}
		conn, bufrw, err := hj.Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(bufrw, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", declared)
		_, _ = bufrw.Write(bytes.Repeat([]byte("r"), sent))
		_ = bufrw.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
}

// Page answers 200 with body and the given Content-Type, with a
// Content-Length; a well-behaved server for baselines.
func Page(contentType string, body []byte) http.Handler {
	cl := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", cl)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// Recorder is a handler that records every request it receives (method,
// path, headers and body, read up to 1 MiB) and answers with Status (200 if zero).
// A test points a redirect at a Recorder to prove whether the redirect was
// followed and whether a request body was replayed to it.
type Recorder struct {
	Status int

	mu   sync.Mutex
	reqs []RecordedRequest
}

// RecordedRequest is one request a Recorder received.
type RecordedRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// ServeHTTP records r and answers.
func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	rec.mu.Unlock()
	status := rec.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "recorded")
}

// Requests returns a copy of the requests received so far.
func (rec *Recorder) Requests() []RecordedRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]RecordedRequest(nil), rec.reqs...)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// UnsafeHeaderValue is one family of characters that must never be shown
// as they are, as a server can put it in a response header value, and what
// the value must read as once ocfetch shows it (every unsafe character
// replaced by U+FFFD, a tab by a space).
type UnsafeHeaderValue struct {
	// Family names the characters: "C1 controls", "bidi isolates", ….
	Family string
	// Value is what the server sends. Families with Wire false (C0
	// controls, DEL) cannot travel in an HTTP/1.1 header value that Go's
	// client accepts: a response carrying them is refused as malformed.
	Value string
	Wire  bool
	// Shown is Value as it must appear in every output.
	Shown string
}

// UnsafeHeaderValues is every family, one value each.
var UnsafeHeaderValues = []UnsafeHeaderValue{
	{"tab (HTTP whitespace)", "a\tb", true, "a b"},
	{"C1 controls", "a\u0085b\u009b2Jc\u009d0;t", true, "a\uFFFDb\uFFFD2Jc\uFFFD0;t"},
	{"bidi overrides and embeddings", "x\u202ay\u202bz\u202c\u202dgpj.exe\u202e", true, "x\uFFFDy\uFFFDz\uFFFD\uFFFDgpj.exe\uFFFD"},
	{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", true, "\uFFFDa\uFFFDb\uFFFDc\uFFFD"},
	{"bidi marks", "a\u200eb\u200fc\u061c", true, "a\uFFFDb\uFFFDc\uFFFD"},
	{"invalid UTF-8", "a\xffb\xc0", true, "a\uFFFDb\uFFFD"},
	{"C0 controls", "a\x1b]0;owned\x07b\x00", false, "a\uFFFD]0;owned\uFFFDb\uFFFD"},
	{"DEL", "a\x7fb", false, "a\uFFFDb"},
}

// UnsafeHeaders answers 200 text/plain "ok" with value as the Server,
// ETag and Last-Modified of the response, written raw (a hijacked
// connection: net/http would not write some of these bytes).
func UnsafeHeaders(value string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, bufrw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(bufrw, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\nServer: %s\r\nETag: %s\r\nLast-Modified: %s\r\n\r\nok", value, value, value)
		_ = bufrw.Flush()
	})
}
