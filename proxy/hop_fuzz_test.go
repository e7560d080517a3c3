package proxy

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// FuzzRemoveHopHeaders: the header fields of a client's request, or of a
// server's response, that the proxy forwards. After removeHopHeaders none
// of the hop-by-hop fields is left in any spelling (Proxy-Authorization,
// this proxy's secret, above all), nor any field the Connection header
// named, and every other field is kept as it was.
func FuzzRemoveHopHeaders(f *testing.F) {
	for _, s := range []string{
		"Proxy-Authorization: Basic b2NmZXRjaDpzM2NyZXQ=\r\nAccept: */*\r\n",
		"Connection: keep-alive, X-Secret\r\nX-Secret: 1\r\nx-secret: 2\r\nX-Kept: 3\r\n",
		"connection: proxy-authorization\r\nproxy-authorization: x\r\nTE: trailers\r\nUpgrade: h2c\r\n",
		"Connection: ,,  ,\r\nKeep-Alive: timeout=5\r\nProxy-Connection: close\r\nTrailer: X\r\n",
		"Connection: a\r\nConnection: b\r\nA: 1\r\nB: 2\r\nC: 3\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fields string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET http://example.com/ HTTP/1.1\r\n" + fields + "\r\n")))
		if err != nil || checkHeaderFields(req.Header) != nil {
			return
		}
		h := req.Header.Clone()
		named := map[string]bool{}
		for _, v := range h.Values("Connection") {
			for name := range strings.SplitSeq(v, ",") {
				named[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
			}
		}
		for _, name := range hopHeaders {
			named[http.CanonicalHeaderKey(name)] = true
		}
		removeHopHeaders(h)
		for k := range h {
			if named[http.CanonicalHeaderKey(k)] {
				t.Fatalf("removeHopHeaders left %q of %q", k, fields)
			}
		}
		for k, vv := range req.Header {
			if !named[http.CanonicalHeaderKey(k)] && strings.Join(h[k], "\x00") != strings.Join(vv, "\x00") {
				t.Fatalf("removeHopHeaders changed %q: %q to %q", k, vv, h[k])
			}
		}
	})
}
