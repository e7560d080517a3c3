//go:build linux

package trust

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// identify returns what the file system says about the directory at path
// (a real path; symlinks are followed), in one statx(2): its device and
// inode, and its birth time when the file system records one (statx's
// returned mask says so: ext4, xfs, btrfs and recent tmpfs do; some
// network file systems and older tmpfs do not). A kernel without statx
// (before 4.11) or a seccomp filter that refuses it gets stat(2): no
// birth time.
func identify(path string) (ident, error) {
	var stx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_BTIME, &stx)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return statIdent(path)
	}
	if err != nil {
		return ident{}, err
	}
	if stx.Mask&unix.STATX_TYPE == 0 || stx.Mask&unix.STATX_INO == 0 {
		return statIdent(path)
	}
	if stx.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ident{}, fmt.Errorf("%s is not a directory", path)
	}
	id := ident{id: devIno(unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino)}
	if stx.Mask&unix.STATX_BTIME != 0 {
		id.birth = birthOf(stx.Btime.Sec, int64(stx.Btime.Nsec))
	}
	return id, nil
}
