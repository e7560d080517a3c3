//go:build unix

package securefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// nonblock keeps an open of a FIFO (swapped in after the Lstat) from
// waiting for a writer.
const nonblock = syscall.O_NONBLOCK

// syncDir fsyncs the directory r is rooted at, so a rename in it survives
// a crash. Best effort: not every filesystem syncs directories.
func syncDir(r *os.Root) {
	if d, err := r.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// tryLock takes flock(LOCK_EX) on f without waiting; false means another
// descriptor holds it.
func tryLock(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	if errors.Is(ferr, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return ferr == nil, ferr
}

func unlockFile(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = syscall.Flock(int(fd), syscall.LOCK_UN) })
	}
}

// cacheable: a [Cache] keeps snapshots on Unix.
const cacheable = true

// identity returns what a snapshot of fi is valid for.
func identity(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	mt, ct, ok := statTimes(st)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mode: uint32(st.Mode), uid: st.Uid, gid: st.Gid,
		mtime: mt, ctime: ct,
	}, true
}

// removeLockFiles: [Lock] removes its lock file on release (Unix can
// unlink a file another process holds open).
const removeLockFiles = true
