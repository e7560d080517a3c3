//go:build !windows

package secretfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExposedFixQuoted: the fix a refusal gives is a command to paste, and
// macOS's configuration directory, ~/Library/Application Support/ocfetch,
// has a space in it: the path is quoted, so chmod gets one argument.
func TestExposedFixQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Application Support", "ocfetch")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, MCPToken)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, check)
	if want := "chmod 600 '" + path + "'"; !errors.Is(err, ErrExposed) || !strings.Contains(err.Error(), want) {
		t.Errorf("Read = %v; want ErrExposed with the fix %s", err, want)
	}
}
