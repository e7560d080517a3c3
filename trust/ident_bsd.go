//go:build darwin || freebsd || netbsd

package trust

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// identify returns what the file system says about the directory at path
// (a real path; symlinks are followed), in one stat(2): its device and
// inode, and its birth time (st_birthtime) when the file system records
// one — APFS, HFS+, UFS2 and ZFS do; where it does not, the field is 0
// or -1, and there is none.
func identify(path string) (ident, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return ident{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ident{}, fmt.Errorf("%s is not a directory", path)
	}
	return ident{
		id:    devIno(uint64(st.Dev), uint64(st.Ino)),
		birth: birthOf(int64(st.Btim.Sec), int64(st.Btim.Nsec)),
	}, nil
}
