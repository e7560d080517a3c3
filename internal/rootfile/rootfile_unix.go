//go:build unix

package rootfile

import (
	"errors"
	"os"
	"syscall"
)

// openFlags: opening a FIFO (swapped in after the check) must not wait for
// a writer.
const openFlags = syscall.O_NONBLOCK

func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// syncDir fsyncs the directory after a rename: best effort, not every
// filesystem syncs directories.
func syncDir(root *os.Root) {
	if d, err := root.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
