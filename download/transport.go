package download

import (
	"compress/gzip"
	"io"
	"net/http"

	"github.com/ocfetch/ocfetch/internal/gzipbody"
	"github.com/ocfetch/ocfetch/robotscheck"
)

// Transport sits between the fetch tool's client and the guarded
// transport (which keeps dialing: the egress guard is untouched) and sees
// the body bytes of each response as the tool reads them, after
// decompression: it copies them to File and draws Bar. Each new response
// (a redirect hop) starts the copy afresh, so the file ends up holding the
// final response's body. A robots.txt request (robotscheck.IsRobotsRequest) is
// not the call's body and passes by.
type Transport struct {
	// Next makes the round trips; it must not be nil.
	Next http.RoundTripper
	// File receives the body; nil writes no file.
	File *File
	// Bar shows the progress; nil draws none.
	Bar *Bar
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if robotscheck.IsRobotsRequest(req) {
		return t.Next.RoundTrip(req) // --respect-robots: not the call's body
	}
	resp, err := t.Next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if gzipbody.LeftEncoded(resp) {
		// A gzip body the transport did not decode (it asks for gzip, and
		// decodes it, only when the request had no Range or
		// Accept-Encoding header): decoded here, as the transport does,
		// so that the file gets the body the fetch tool reads and counts,
		// not the compressed bytes cut or padded to that count.
		resp.Body = &gunzipBody{body: resp.Body}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
	}
	t.File.reset()
	redirect := resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != ""
	if !redirect {
		t.Bar.start(resp.ContentLength)
	}
	resp.Body = &tapBody{ReadCloser: resp.Body, file: t.File, bar: t.Bar, quiet: redirect}
	return resp, nil
}

type tapBody struct {
	io.ReadCloser
	file  *File
	bar   *Bar
	quiet bool
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.file.write(p[:n])
		if !b.quiet {
			b.bar.add(n)
		}
	}
	return n, err
}

// gunzipBody decodes a gzip body, reading its header on the first Read
// (an empty body is an empty body, as with the transport's own decoding).
type gunzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

func (g *gunzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

func (g *gunzipBody) Close() error { return g.body.Close() }
