//go:build unix

package managed

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// DefaultPath is the policy file of this platform: on macOS
// /Library/Application Support/ocfetch/policy.json, on every other Unix
// /etc/ocfetch/policy.json.
func DefaultPath() (string, error) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return "/Library/Application Support/ocfetch/" + FileName, nil
	}
	return "/etc/ocfetch/" + FileName, nil
}

// isAdministrator: root.
func isAdministrator(owner string) bool { return owner == "0" }

// checkOwner refuses a file or directory that a non-administrator owns or
// that is group- or world-writable. The directory is the one the OS
// resolves (stat, not lstat): a link to it is the administrator's choice.
//
// The directory's owner and mode come from the check of the directory
// made for the file's snapshot (securefile.DirOwner; the file was read
// only if the directory is a real one, so its lstat is its stat), else
// from a stat of its own; the directory's path is derived only then, or
// to name it in a refusal.
func checkOwner(path string, fi fs.FileInfo, d securefile.DirOwner, admin func(string) bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("the file: cannot read its owner")
	}
	if err := writableOnlyByAdmin("the file", noPath, st.Uid, fi.Mode().Perm(), admin); err != nil {
		return err
	}
	dir := func() string { return filepath.Dir(path) }
	uid, perm := d.UID, d.Perm
	if !d.Known {
		dfi, err := os.Stat(dir())
		if err != nil {
			return err
		}
		dst, ok := dfi.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("its directory %s: cannot read its owner", dir())
		}
		uid, perm = dst.Uid, dfi.Mode().Perm()
	}
	return writableOnlyByAdmin("its directory ", dir, uid, perm, admin)
}

func noPath() string { return "" }

// writableOnlyByAdmin checks the owner and mode of what name and path
// (asked for and joined only for the error) designate.
func writableOnlyByAdmin(name string, path func() string, uid uint32, m fs.FileMode, admin func(string) bool) error {
	owner := strconv.FormatUint(uint64(uid), 10)
	if !admin(owner) {
		return fmt.Errorf("%s%s is owned by uid %s, not an administrator (root)", name, path(), owner)
	}
	if m&0o022 != 0 {
		return fmt.Errorf("%s%s is writable by its group or by everyone (mode %#o); it must be writable by administrators only", name, path(), m)
	}
	return nil
}
