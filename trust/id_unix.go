//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// dirID returns the identity of the directory at path: its device and
// inode. It follows symlinks (path is a real path already).
func dirID(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino)), nil
}

// samePath compares real paths: byte for byte on Unix.
func samePath(a, b string) bool { return a == b }
