//go:build unix && !darwin && !freebsd && !netbsd

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// statIdent is the identity stat(2) gives: device and inode, no birth
// time.
func statIdent(path string) (ident, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return ident{}, err
	}
	if !fi.IsDir() {
		return ident{}, fmt.Errorf("%s is not a directory", path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ident{}, nil
	}
	return ident{id: devIno(uint64(st.Dev), uint64(st.Ino))}, nil
}
