//go:build windows

package rootfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// openFlags: Windows has no FIFOs in the file system namespace to hang on.
const openFlags = 0

func tryLock(f *os.File) (bool, error) {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	}
	return false, err
}

func unlockFile(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// syncDir: Windows does not sync directories; the rename is durable once
// the file system journals it.
func syncDir(*os.Root) {}
