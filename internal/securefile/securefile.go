package securefile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

var (
	// ErrSymlink is wrapped when DIR or NAME is a symbolic link (dangling or
	// not). Such a link is never followed.
	ErrSymlink = errors.New("a symlink, which ocfetch never follows")
	// ErrNotRegular is wrapped when NAME is a directory, device, FIFO,
	// socket, symlink or anything else that is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotDir is wrapped when DIR is not a directory (or is a symlink to
	// one, or on Windows a junction: Go reports a mount point as
	// ModeIrregular, and it is never followed either).
	ErrNotDir = errors.New("not a directory")
	// ErrTooLarge is wrapped when a file exceeds the size limit of [ReadFile].
	ErrTooLarge = errors.New("file too large")
	// ErrChanged is wrapped when the file opened is not the one checked a
	// moment before: something swapped it in between.
	ErrChanged = errors.New("replaced while being opened")
)

// dirPerm is the mode of a directory this package creates.
const dirPerm = 0o755

// lockPoll is how often [Lock] retries a held lock.
const lockPoll = 5 * time.Millisecond

// openDir opens dir as an os.Root after checking, through a root at its
// parent, that dir is a real directory and not a symlink. With create, a
// missing dir is made (its parent with os.MkdirAll, which follows the
// user's own symlinks above dir).
func openDir(dir string, create bool) (*os.Root, error) {
	if filepath.Base(dir) == ".." {
		// "..", "a/..": a root cannot look up its own parent, so the
		// directory is named from / (lexically, as a shell's cd does
		// with its $PWD), then checked as any other.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		dir = abs
	}
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	if create {
		if err := os.MkdirAll(parent, dirPerm); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	pr, err := os.OpenRoot(parent)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	defer pr.Close()
	fi, err := pr.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := pr.Mkdir(name, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		fi, err = pr.Lstat(name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: %w: %w", dir, ErrNotDir, ErrSymlink)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w (%s)", dir, ErrNotDir, TypeName(fi.Mode()))
	}
	r, err := pr.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	st, err := r.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		r.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrChanged)
	}
	return r, nil
}

// openFile opens name in r after checking it is a regular file, not a
// symlink, and re-checks that what was opened is that file (a name
// replaced in between is looked at again, up to three times, so a reader
// racing an atomic rewrite gets the old file or the new one). With O_CREATE
// in flag a missing file is created exclusively (O_EXCL), which never
// follows a symlink planted in the meantime. path names the file in errors.
func openFile(r *os.Root, path, name string, flag int, perm fs.FileMode) (*os.File, error) {
	create := flag&os.O_CREATE != 0
	flag = flag&^(os.O_CREATE|os.O_EXCL|os.O_TRUNC) | nonblock
	for range 3 {
		fi, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && create {
			f, err := r.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, perm)
			if errors.Is(err, fs.ErrExist) {
				continue // created (or planted) since the Lstat: look again
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
			}
			return f, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if err := checkRegular(path, fi.Mode()); err != nil {
			return nil, err
		}
		f, err := r.OpenFile(name, flag, perm)
		if create && errors.Is(err, fs.ErrNotExist) {
			continue // removed since the Lstat (a released lock file): create it
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if !os.SameFile(fi, st) || !st.Mode().IsRegular() {
			// Swapped between the check and the open: an atomic rewrite
			// (rename over the name) does this legitimately, so look
			// again; what is opened is always the file just checked.
			f.Close()
			continue
		}
		return f, nil
	}
	// Swapped three times in a row: somebody keeps replacing the name.
	return nil, fmt.Errorf("%s: %w", path, ErrChanged)
}

func checkRegular(path string, m fs.FileMode) error {
	if m&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: %w: %w", path, ErrNotRegular, ErrSymlink)
	}
	if !m.IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, TypeName(m))
	}
	return nil
}

// unwrapPath drops the *PathError's own operation and relative name, which
// the caller replaces with the full path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile reads path, a regular file of at most limit bytes, fail-closed:
// a symlink (at path or at its directory) is refused with [ErrSymlink],
// anything else that is not a regular file with [ErrNotRegular], a larger
// file with [ErrTooLarge]; it never blocks on a FIFO. A missing file or
// directory returns an error wrapping fs.ErrNotExist. Errors name path.
func ReadFile(path string, limit int64) ([]byte, error) {
	data, _, err := readFile(path, limit)
	return data, err
}

// readFile is [ReadFile], also returning the FileInfo of the file read.
func readFile(path string, limit int64) ([]byte, fs.FileInfo, error) {
	r, err := openDir(filepath.Dir(path), false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	return readIn(r, path, filepath.Base(path), limit)
}

// readIn reads name in r as [ReadFile] reads path.
func readIn(r *os.Root, path, name string, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := openFile(r, path, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if fi.Size() > limit {
		return nil, nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, fi.Size(), limit)
	}
	// Read at most limit+1 bytes: a file that grew since the Stat is still
	// caught by the limit, and never read whole.
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	for err == nil {
		if int64(n) > limit {
			return nil, nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, limit)
		}
		grow := min(int64(len(buf)), limit+1-int64(n))
		buf = append(buf, make([]byte, grow)...)
		var m int
		m, err = io.ReadFull(f, buf[n:])
		n += m
	}
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if int64(n) > limit {
		return nil, nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, limit)
	}
	if int64(n) != fi.Size() {
		// The file changed while it was read: the FileInfo does not
		// describe these bytes. Stat again, so that a snapshot is keyed
		// by what was read (a later change still shows).
		if st, err := f.Stat(); err == nil {
			fi = st
		}
	}
	return buf[:n], fi, nil
}

// OpenRead opens path for reading under the checks of [ReadFile] (bar the
// size limit). The caller closes the file.
func OpenRead(path string) (*os.File, error) {
	r, err := openDir(filepath.Dir(path), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	return openFile(r, path, filepath.Base(path), os.O_RDONLY, 0)
}

// OpenAppend opens path write-only with O_APPEND, creating it with perm
// (and its directory, 0755) if missing, under the checks of [ReadFile]:
// never through a symlink, never anything but a regular file. Each Write
// of a line to the result is one append a concurrent appender cannot split.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	r, err := openDir(filepath.Dir(path), true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	return openFile(r, path, filepath.Base(path), os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// EnsureDir creates dir (0755, and its parents) if it does not exist and
// refuses it, by name, if it is a symlink or not a directory.
func EnsureDir(dir string) error {
	r, err := openDir(dir, true)
	if err != nil {
		return err
	}
	return r.Close()
}

// NotLooser returns perm less every permission the regular file now at
// path lacks (path not followed if a symlink, its directory checked as
// [ReadFile] checks it), so that a file rewritten with it never gets a
// looser mode than the one it replaces; perm when there is no such file.
// On Windows, whose mode bits stand only for the read-only attribute, perm.
func NotLooser(path string, perm fs.FileMode) fs.FileMode {
	if runtime.GOOS == "windows" {
		return perm
	}
	if fi, err := Lstat(path); err == nil && fi.Mode().IsRegular() {
		return perm & (fi.Mode().Perm() | ^fs.ModePerm)
	}
	return perm
}

// WriteFile replaces path with data so that a reader, or a crash at any
// point, sees either the old file or the new one, never a torn one: the
// data goes to a new temporary file in the same directory, is fsynced,
// renamed over path, and the directory is fsynced where the system has
// that. The directory is created (0755) if missing. A path that is a
// symlink, or not a regular file, is refused and left as it is.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	r, err := openDir(filepath.Dir(path), true)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	name := filepath.Base(path)
	if fi, err := r.Lstat(name); err == nil {
		if err := checkRegular(path, fi.Mode()); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := "." + name + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	renamed := false
	defer func() {
		if !renamed {
			r.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := f.Chmod(perm); err != nil { // exactly perm, whatever the umask
		f.Close()
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := r.Rename(tmp, name); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	renamed = true
	syncDir(r)
	return nil
}

// Lock takes an exclusive lock on path+".lock" — flock on Unix, LockFileEx
// on Windows — creating the lock file (0600) through the directory's root
// if needed and never through a symlink, so read-modify-write cycles of
// path are serialised across goroutines and processes. It waits until ctx
// is done. The returned function releases the lock.
//
// On Unix the lock file is removed again when the lock is released, so no
// empty .lock file stays beside the file it guards. That is safe because
// a lock counts only while the name still leads to the locked file: after
// taking the lock, Lock checks that path+".lock" is the very file it holds
// (same device and inode) and otherwise — its holder removed it meanwhile —
// lets go and starts again with the file now at the name; and only a
// holder that passed that check removes it, before releasing. On Windows,
// which cannot remove an open file, the lock file stays.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	lockPath := path + ".lock"
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		r, err := openDir(filepath.Dir(lockPath), true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", lockPath, err)
		}
		f, err := openFile(r, lockPath, filepath.Base(lockPath), os.O_RDWR|os.O_CREATE, 0o600)
		if errors.Is(err, ErrChanged) && removeLockFiles && ctx.Err() == nil {
			r.Close() // created and removed by others three times over: again
			continue
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		err = waitLock(ctx, f, lockPath, &t)
		if err != nil {
			f.Close()
			r.Close()
			return nil, err
		}
		if !removeLockFiles {
			r.Close()
			return func() { unlockFile(f); f.Close() }, nil
		}
		if stillNamed(r, filepath.Base(lockPath), f) {
			return func() {
				_ = r.Remove(filepath.Base(lockPath))
				unlockFile(f)
				f.Close()
				r.Close()
			}, nil
		}
		// The holder before us removed the file we waited on: the lock
		// is the file at the name now.
		unlockFile(f)
		f.Close()
		r.Close()
	}
}

// waitLock waits until f's lock is taken or ctx is done.
func waitLock(ctx context.Context, f *os.File, lockPath string, t **time.Timer) error {
	for {
		ok, err := tryLock(f)
		if err != nil {
			return fmt.Errorf("lock %s: %w", lockPath, err)
		}
		if ok {
			return nil
		}
		if *t == nil {
			*t = time.NewTimer(lockPoll)
		} else {
			(*t).Reset(lockPoll)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("lock %s: %w", lockPath, context.Cause(ctx))
		case <-(*t).C:
		}
	}
}

// stillNamed reports whether name in r is the file f holds open.
func stillNamed(r *os.Root, name string, f *os.File) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := r.Lstat(name)
	return err == nil && os.SameFile(held, now)
}

// TypeName names the kind of file m is, for messages: "a directory", "a
// FIFO", "a socket", "a device", "a regular file", on Windows "a junction
// or other reparse point" (what Go reports as ModeIrregular there: a
// mount point, or any reparse point but a symlink), or its mode.
func TypeName(m fs.FileMode) string { return typeName(m, runtime.GOOS == "windows") }

func typeName(m fs.FileMode, windows bool) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeIrregular != 0 && windows:
		return "a junction or other reparse point, which ocfetch does not follow"
	case m&fs.ModeIrregular != 0:
		return "a file of unknown type"
	default:
		return "mode " + m.Type().String()
	}
}

// Lstat returns the Lstat of path, its directory checked as [ReadFile]
// checks it (a real directory, not a symlink): what a caller checks (owner,
// mode) about the very file ReadFile reads. path itself is not followed.
func Lstat(path string) (fs.FileInfo, error) {
	r, err := openDir(filepath.Dir(path), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	fi, err := r.Lstat(filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return fi, nil
}
