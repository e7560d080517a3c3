package download

import (
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
