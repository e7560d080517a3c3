//go:build unix

package search

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/ocfetch/ocfetch/safetext"
)

// checkKeyFile refuses a key file that anyone but its owner may read or
// write: a key readable by the group is a key shared.
func checkKeyFile(path string, _ *os.File, fi fs.FileInfo) error {
	if m := fi.Mode(); m.Perm()&0o077 != 0 {
		return fmt.Errorf("the key file %s may be read or written by others (mode %s); run: chmod 600 %s", path, m.Perm(), safetext.ShellQuote(path))
	}
	return nil
}
