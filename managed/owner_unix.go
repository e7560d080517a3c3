//go:build unix

package managed

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"syscall"
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
func checkOwner(dir, _ string, fi fs.FileInfo, admin func(string) bool) error {
	if err := writableOnlyByAdmin("the file", fi, admin); err != nil {
		return err
	}
	dfi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return writableOnlyByAdmin("its directory "+dir, dfi, admin)
}

func writableOnlyByAdmin(name string, fi fs.FileInfo, admin func(string) bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot read its owner", name)
	}
	owner := strconv.FormatUint(uint64(st.Uid), 10)
	if !admin(owner) {
		return fmt.Errorf("%s is owned by uid %s, not an administrator (root)", name, owner)
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or by everyone (mode %#o); it must be writable by administrators only", name, m)
	}
	return nil
}
