//go:build windows

package securefile

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// nonblock is zero: Windows has no FIFOs in the file system to wait on.
const nonblock = 0

// syncDir does nothing: Windows cannot flush a directory handle; NTFS
// journals the rename itself.
func syncDir(*os.Root) {}

// tryLock takes LockFileEx(LOCKFILE_EXCLUSIVE_LOCK) on the first byte of f
// without waiting; false means another handle holds it.
func tryLock(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lerr error
	if err := rc.Control(func(h uintptr) {
		lerr = windows.LockFileEx(windows.Handle(h),
			windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	}); err != nil {
		return false, err
	}
	if errors.Is(lerr, windows.ERROR_LOCK_VIOLATION) || errors.Is(lerr, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return lerr == nil, lerr
}

func unlockFile(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(h uintptr) {
			_ = windows.UnlockFileEx(windows.Handle(h), 0, 1, 0, new(windows.Overlapped))
		})
	}
}

// cacheable is false on Windows: a [Cache] reads the file on every Load.
// An open directory handle would keep the user from renaming or deleting
// the directory, and os.Root's FileInfo carries no file ID.
const cacheable = false

func identity(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// removeLockFiles: [Lock] keeps its lock file (Windows cannot remove a
// file another process holds open).
const removeLockFiles = false
