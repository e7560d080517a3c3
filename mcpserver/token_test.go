package mcpserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoadOrCreateToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cfg", "ocfetch", TokenFileName)
	tok, err := LoadOrCreateToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if !validToken(tok) {
		t.Errorf("generated token %q is not valid", tok)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v, %v; want 0600", fi.Mode(), err)
		}
		di, err := os.Stat(filepath.Dir(path))
		if err != nil || di.Mode().Perm() != 0o700 {
			t.Errorf("token dir mode %v, %v; want 0700", di.Mode(), err)
		}
	}
	again, err := LoadOrCreateToken(path)
	if err != nil || again != tok {
		t.Errorf("second load = %q, %v; want the same token %q", again, err, tok)
	}

	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	tests := []struct {
		name    string
		path    string
		wantErr string
		unix    bool
	}{
		{name: "a token written by hand", path: write("hand", "  my-own-token-0123456789\n", 0o600)},
		{name: "readable by others", path: write("open", "my-own-token-0123456789\n", 0o644), wantErr: "chmod 600", unix: true},
		{name: "too short", path: write("short", "abc\n", 0o600), wantErr: "does not hold one token"},
		{name: "two words", path: write("words", "my own token 0123456789\n", 0o600), wantErr: "does not hold one token"},
		{name: "a directory", path: dir, wantErr: "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unix && runtime.GOOS == "windows" {
				t.Skip("Unix modes")
			}
			got, err := LoadOrCreateToken(tc.path)
			if tc.wantErr == "" {
				if err != nil || got != "my-own-token-0123456789" {
					t.Errorf("= %q, %v; want the file's token", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("= %q, %v; want an error naming the file and %q", got, err, tc.wantErr)
			}
		})
	}
}

// TestBearerTokenRequired: a request without the server's bearer token is
// refused with 401 and nothing is forwarded to the SDK.
func TestBearerTokenRequired(t *testing.T) {
	var forwarded atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { forwarded.Add(1) })
	ms, err := NewServer(&Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := newHTTPFront(next, ms, testToken, 0)
	tests := []struct {
		name   string
		header string
		want   int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"wrong token", "Bearer not-the-token-0123456789", http.StatusUnauthorized},
		{"token prefix", "Bearer " + testToken[:len(testToken)-1], http.StatusUnauthorized},
		{"basic scheme", "Basic " + testToken, http.StatusUnauthorized},
		{"bare token", testToken, http.StatusUnauthorized},
		{"right token", "Bearer " + testToken, http.StatusOK},
		{"scheme case-insensitive", "bearer " + testToken, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := forwarded.Load()
			for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				r := httptest.NewRequest(method, "http://127.0.0.1/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				if tc.header != "" {
					r.Header.Set("Authorization", tc.header)
				}
				w := httptest.NewRecorder()
				f.ServeHTTP(w, r)
				if w.Code != tc.want {
					t.Errorf("%s: %d; want %d", method, w.Code, tc.want)
				}
				if tc.want == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
					t.Errorf("%s: 401 without WWW-Authenticate", method)
				}
			}
			n := forwarded.Load() - before
			if tc.want == http.StatusUnauthorized && n != 0 {
				t.Errorf("%d requests forwarded; want none", n)
			}
			if tc.want == http.StatusOK && n != 3 {
				t.Errorf("%d requests forwarded; want 3", n)
			}
		})
	}
}

// TestServeHTTPNeedsToken: no token, no HTTP server.
func TestServeHTTPNeedsToken(t *testing.T) {
	err := Serve(t.Context(), &Options{Root: t.TempDir(), HTTPAddr: "127.0.0.1:0"})
	if err != ErrNoToken {
		t.Errorf("Serve without a token = %v; want ErrNoToken", err)
	}
}

// TestUnauthorizedConnectionClosed: a client without the token keeps no
// connection of the server's open — the 401 closes it — so local users
// without the token cannot pile up idle connections (file descriptors).
func TestUnauthorizedConnectionClosed(t *testing.T) {
	addr := serveHTTPForTest(t, &Options{Root: t.TempDir()})
	for i := range 3 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", addr)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Errorf("request %d: status %d, close %v; want 401 and Connection: close", i, resp.StatusCode, resp.Close)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("request %d: after the 401 the connection gave %v; want EOF (closed by the server)", i, err)
		}
		conn.Close()
	}
}
