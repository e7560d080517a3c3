//go:build linux || android || darwin || ios || freebsd || netbsd || openbsd || dragonfly || solaris || illumos

package securefile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openDirFD opens the directory r is rooted at once more, as a descriptor
// that [dirHandle.statAt] stats names under with one fstatat(2) each.
func openDirFD(r *os.Root) (*os.File, error) { return r.Open(".") }

// fstatat is one fstatat(2) of name under the directory fd, not following
// a symlink at name: the identity of what is there, and its type. A
// missing name wraps fs.ErrNotExist.
func fstatat(fd int, name string) (fileID, fs.FileMode, error) {
	var st unix.Stat_t
	checks.Add(1)
	for {
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, 0, &fs.PathError{Op: "fstatat", Path: name, Err: err}
		}
		break
	}
	id := fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mode: uint32(st.Mode), uid: st.Uid, gid: st.Gid,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
	return id, typeOf(uint32(st.Mode)), nil
}

// typeOf is the fs.FileMode type bits of a stat mode (only what the
// callers tell apart: regular, directory, symlink, other).
func typeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// lstatID is one lstat of path (fstatat relative to the working
// directory): the identity of what is there, not following a symlink at
// path itself.
func lstatID(path string) (fileID, fs.FileMode, error) { return fstatat(unix.AT_FDCWD, path) }
