//go:build !(linux || android || darwin || ios || freebsd || netbsd || openbsd || dragonfly || solaris || illumos)

package securefile

import (
	"errors"
	"io/fs"
	"os"
)

// openDirFD: no descriptor-relative stat here; [dirHandle.statAt] uses
// the os.Root.
func openDirFD(*os.Root) (*os.File, error) { return nil, nil }

func fstatat(int, string) (fileID, fs.FileMode, error) {
	return fileID{}, 0, errors.ErrUnsupported
}

func lstatID(path string) (fileID, fs.FileMode, error) {
	checks.Add(1)
	fi, err := os.Lstat(path)
	if err != nil {
		return fileID{}, 0, err
	}
	id, ok := identity(fi)
	if !ok {
		return fileID{}, 0, errors.New(path + ": no identity")
	}
	return id, fi.Mode().Type(), nil
}
