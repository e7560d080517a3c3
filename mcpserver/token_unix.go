//go:build !windows

package mcpserver

import (
	"fmt"
	"io/fs"
)

// checkTokenMode refuses a token file other users can read or write.
func checkTokenMode(fi fs.FileInfo) error {
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("mode %04o lets other users read it; run chmod 600 on it", m)
	}
	return nil
}
