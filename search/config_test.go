package search

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		config  string // search.json; "" for none
		key     string // search.key; "" for none
		keyPerm os.FileMode
		flags   Config
		backend string
		err     error
		msg     string
	}{
		{name: "nothing configured", err: ErrNotConfigured, msg: "search.json"},
		{name: "brave from the file", config: `{"schema_version": 1, "backend": "brave"}`, key: "BSA-k\n", keyPerm: 0o600, backend: "brave https://api.search.brave.com/res/v1/web/search"},
		{name: "tavily from the file", config: `{"schema_version": 1, "backend": "tavily"}`, key: "tvly-k", keyPerm: 0o400, backend: "tavily https://api.tavily.com/search"},
		{name: "searxng by flag only", flags: Config{Backend: "searxng", URL: "http://127.0.0.1:8888/"}, backend: "searxng http://127.0.0.1:8888/search"},
		{name: "flag url over the file's", config: `{"schema_version": 1, "backend": "searxng", "url": "https://a.example"}`, flags: Config{URL: "https://b.example/s"}, backend: "searxng https://b.example/s/search"},
		{name: "searxng without url", config: `{"schema_version": 1, "backend": "searxng"}`, err: ErrConfig, msg: "url"},
		{name: "brave without key file", config: `{"schema_version": 1, "backend": "brave"}`, err: ErrConfig, msg: "search.key"},
		{name: "unknown backend", config: `{"schema_version": 1, "backend": "bing"}`, err: ErrConfig, msg: "searxng, brave or tavily"},
		{name: "unknown field", config: `{"schema_version": 1, "backend": "brave", "key": "BSA-inline"}`, err: ErrConfig, msg: "unknown or repeated field"},
		{name: "no schema_version", config: `{"backend": "brave"}`, err: ErrConfig, msg: "schema_version"},
		{name: "empty key", config: `{"schema_version": 1, "backend": "brave"}`, key: "\n", keyPerm: 0o600, err: ErrConfig, msg: "needs an API key"},
		{name: "two-line key", config: `{"schema_version": 1, "backend": "brave"}`, key: "a\nb\n", keyPerm: 0o600, err: ErrConfig, msg: "one line"},
		{name: "key with CRLF", config: `{"schema_version": 1, "backend": "brave"}`, key: "BSA-k\r\n", keyPerm: 0o600, backend: "brave https://api.search.brave.com/res/v1/web/search"},
		{name: "key saved with a BOM", config: `{"schema_version": 1, "backend": "brave"}`, key: "\ufeffBSA-k\r\n", keyPerm: 0o600, err: ErrConfig, msg: "byte order mark (BOM)"},
		{name: "key saved as UTF-16", config: `{"schema_version": 1, "backend": "brave"}`, key: "\xff\xfeB\x00S\x00A\x00", keyPerm: 0o600, err: ErrConfig, msg: "byte order mark (BOM)"},
		{name: "key file path with a directory", config: `{"schema_version": 1, "backend": "brave", "key_file": "sub/k"}`, err: ErrConfig, msg: "file name"},
		{name: "credentials in url", flags: Config{Backend: "searxng", URL: "https://u:p@s.example"}, err: ErrConfig, msg: "credentials"},
		{name: "query in url", flags: Config{Backend: "searxng", URL: "https://s.example/?token=abc"}, err: ErrConfig, msg: "no query"},
		{name: "ftp url", flags: Config{Backend: "searxng", URL: "ftp://s.example"}, err: ErrConfig, msg: "https://"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name    string
			config  string
			key     string
			keyPerm os.FileMode
			flags   Config
			backend string
			err     error
			msg     string
		}{name: "key readable by others", config: `{"schema_version": 1, "backend": "brave"}`, key: "BSA-k", keyPerm: 0o644, err: ErrConfig, msg: "chmod 600"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.config != "" {
				writeFile(t, filepath.Join(dir, ConfigName), tc.config, 0o600)
			}
			if tc.key != "" {
				writeFile(t, filepath.Join(dir, DefaultKeyFile), tc.key, tc.keyPerm)
			}
			b, err := Load(&LoadOptions{Dir: dir, Flags: tc.flags})
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("err = %v; want %v naming %q", err, tc.err, tc.msg)
				}
				if strings.Contains(err.Error(), "BSA-") {
					t.Errorf("error shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := describe(b); got != tc.backend {
				t.Errorf("backend = %q; want %q", got, tc.backend)
			}
		})
	}
}

func TestLoadRefusesSymlinkedKey(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ConfigName), `{"schema_version": 1, "backend": "brave"}`, 0o600)
	writeFile(t, filepath.Join(dir, "real.key"), "BSA-k", 0o600)
	if err := os.Symlink(filepath.Join(dir, "real.key"), filepath.Join(dir, DefaultKeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(&LoadOptions{Dir: dir}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("err = %v; want the symlinked key file refused", err)
	}
}
