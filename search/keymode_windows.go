//go:build windows

package search

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/ocfetch/ocfetch/internal/secretfile"
)

// checkKeyFile refuses a key file whose DACL lets anyone but its owner
// (and the machine's administrators) read or write it, naming who and the
// icacls command that fixes it (secretfile.CheckPrivate): on Windows the
// mode bits stand only for the read-only attribute.
func checkKeyFile(path string, f *os.File, fi fs.FileInfo) error {
	if err := secretfile.CheckPrivate(path, f, fi); err != nil {
		return fmt.Errorf("the key file %w", err)
	}
	return nil
}
