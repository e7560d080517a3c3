package download

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewFileRefusesDestination(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		wantErr error
		wantMsg string
	}{
		{"missing directory", filepath.Join(dir, "nope", "f"), ErrNoDirectory,
			filepath.Join(dir, "nope", "f") + ": directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"a directory", dir, ErrIsDirectory, dir + " is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFile(tc.path)
			var de *DestinationError
			if !errors.Is(err, tc.wantErr) || !errors.As(err, &de) || err.Error() != tc.wantMsg {
				t.Errorf("NewFile(%q) = %v; want a *DestinationError %q wrapping %v", tc.path, err, tc.wantMsg, tc.wantErr)
			}
		})
	}
}

// TestTransportWritesTheFinalBody: through a redirect, the file holds
// the final response's body, cut to what Commit keeps; a discarded file
// leaves nothing behind.
func TestTransportWritesTheFinalBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		io.WriteString(w, "the final body")
	}))
	defer srv.Close()
	dir := t.TempDir()
	get := func(f *File) {
		t.Helper()
		client := &http.Client{Transport: &Transport{Next: srv.Client().Transport, File: f}}
		resp, err := client.Get(srv.URL + "/hop")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	path := filepath.Join(dir, "body.txt")
	f, err := NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	get(f)
	if err := f.Commit(int64(len("the final"))); err != nil {
		t.Fatal(err)
	}
	f.Discard() // after Commit: keeps the file
	if got, err := os.ReadFile(path); err != nil || string(got) != "the final" {
		t.Errorf("%s = %q, %v; want %q", path, got, err, "the final")
	}

	f, err = NewFile(filepath.Join(dir, "dropped.txt"))
	if err != nil {
		t.Fatal(err)
	}
	get(f)
	f.Discard()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "body.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %s; want only body.txt", dir, strings.Join(names, ", "))
	}
}

// TestTransportDecodesUnaskedGzip: a gzip body the transport below did
// not decode (no Accept-Encoding was sent: a Range request) reaches the
// reader, and the file, decoded; an identity body passes as it is.
func TestTransportDecodesUnaskedGzip(t *testing.T) {
	const page = "the decoded page, the decoded page, the decoded page"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(page))
	zw.Close()
	tests := []struct {
		name     string
		encoding string
		body     []byte
	}{
		{"gzip", "gzip", gz.Bytes()},
		{"gzip, odd case", " GZip ", gz.Bytes()},
		{"identity", "", []byte(page)},
		{"empty gzip", "gzip", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.encoding != "" {
					w.Header().Set("Content-Encoding", tc.encoding)
				}
				w.Write(tc.body)
			}))
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "out")
			f, err := NewFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Discard()
			client := &http.Client{Transport: &Transport{Next: srv.Client().Transport, File: f}}
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("Range", "bytes=0-") // Go's transport then asks for no gzip
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			read, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := page
			if tc.body == nil {
				want = ""
			}
			if string(read) != want || resp.Header.Get("Content-Encoding") != "" && tc.encoding != "" {
				t.Errorf("read %q (Content-Encoding %q); want %q, decoded", read, resp.Header.Get("Content-Encoding"), want)
			}
			if err := f.Commit(int64(len(read))); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != want {
				t.Errorf("%s = %q; want %q", path, got, want)
			}
		})
	}
}

// TestCommitNeverPads: keeping more bytes than passed through is an
// error, not a file padded with zeros; nothing is left behind.
func TestCommitNeverPads(t *testing.T) {
	for _, body := range []string{"", "short"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out")
		f, err := NewFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			f.reset()
			f.write([]byte(body))
		}
		if err := f.Commit(int64(len(body) + 10)); !errors.Is(err, ErrIncomplete) {
			t.Errorf("Commit(%d) after %d bytes = %v; want ErrIncomplete", len(body)+10, len(body), err)
		}
		f.Discard()
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s holds %d entries after a refused Commit; want none", dir, len(entries))
		}
	}
}
