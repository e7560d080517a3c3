//go:build unix

package search

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyFixQuoted: the chmod a refusal of the key file gives is quoted,
// as macOS's configuration directory (~/Library/Application Support) has
// a space in it.
func TestKeyFixQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Application Support", "ocfetch")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ConfigName), `{"schema_version": 1, "backend": "brave"}`, 0o600)
	writeFile(t, filepath.Join(dir, DefaultKeyFile), "BSA-k", 0o644)
	_, err := Load(&LoadOptions{Dir: dir})
	if want := "run: chmod 600 '" + filepath.Join(dir, DefaultKeyFile) + "'"; !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) {
		t.Errorf("Load = %v; want the fix %s", err, want)
	}
}
