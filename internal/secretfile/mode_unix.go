//go:build !windows

package secretfile

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/ocfetch/ocfetch/safetext"
)

// checkPrivate refuses a secret file its group or others may access
// (checkMode).
func checkPrivate(path string, _ *os.File, fi fs.FileInfo) error {
	return checkMode(path, fi.Mode())
}

// checkMode refuses a secret file its group or others may access.
func checkMode(path string, m fs.FileMode) error {
	if p := m.Perm(); p&0o077 != 0 {
		return fmt.Errorf("%s: %w: mode %04o (fix: chmod 600 %s)", path, ErrExposed, p, safetext.ShellQuote(path))
	}
	return nil
}

// makePrivate does nothing: a secret file is created mode 0600.
func makePrivate(string) error { return nil }
