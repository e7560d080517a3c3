package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGetOutputFileUnaskedGzip: a server that gzips a body the transport
// did not ask to be compressed (a request with a Range header goes out
// without Accept-Encoding, so Go's transport leaves the body encoded and
// the fetch tool decodes it): -o FILE holds the decoded body the tool
// read, the length it reports — never the compressed bytes, cut or
// padded with zeros to that length.
func TestGetOutputFileUnaskedGzip(t *testing.T) {
	page := strings.Repeat("the decoded page. ", 200)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(page))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		w.Write(gz.Bytes())
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	root := newRoot(t)
	localRoot2(t, root, port, true)
	file := filepath.Join(t.TempDir(), "page.txt")

	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "-H", "Range: bytes=0-", "-o", file, srv.URL+"/")
	r.want(t, exitOK, []string{"wrote " + strconv.Itoa(len(page)) + " bytes to " + file}, nil)
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != page {
		t.Errorf("%s holds %d bytes (%q…); want the %d-byte decoded page", file, len(got), got[:min(len(got), 16)], len(page))
	}
}
