// Package rootfile reads and writes the small files of one directory
// through an [os.Root] opened at it: the user's configuration directory
// (os.UserConfigDir()/ocfetch: trust.json, the user's rules.json) and the
// directory of the administrator's policy file.
//
// Every name is one file directly in the directory. A name that is a
// symlink is refused with [ErrSymlink], never followed, whether it leads
// inside the directory or out of it, and whether it dangles; a write never
// creates a file anywhere but in the directory. Reads accept regular files
// only, bounded in size, and never block on a FIFO.
//
//	d := rootfile.Dir{Path: dir}
//	unlock, err := d.Lock(ctx, "trust.json")
//	defer unlock()
//	data, err := d.Read("trust.json", 1<<20)
//	err = d.WriteAtomic("trust.json", data, 0o600)
package rootfile

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
	"strings"
	"time"
)

// ErrSymlink is wrapped when a file is a symlink: it is refused, never
// followed.
var ErrSymlink = errors.New("is a symlink (refused, not followed)")

// ErrNotRegular is wrapped when a file is a directory, device, FIFO,
// socket or anything else that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file exceeds the size limit of the read.
var ErrTooLarge = errors.New("file too large")

// ErrChanged is wrapped when the file opened is not the file checked: the
// name was replaced between the two steps.
var ErrChanged = errors.New("was replaced while being opened")

// Dir is a directory whose files are read and written through an os.Root.
// Path should be absolute. The directory itself is opened as the OS
// resolves it (it may be reached through a symlink, as a dotfile manager
// links ~/.config/ocfetch); only the files in it are held to the rules of
// this package.
type Dir struct {
	Path string
}

// Join returns the path of name in d, for messages.
func (d Dir) Join(name string) string { return filepath.Join(d.Path, name) }

// UserDir returns os.UserConfigDir()/ocfetch: where the trust store and
// the user's rules live. Its location is the operating system's (on
// Linux $XDG_CONFIG_HOME or ~/.config, on macOS ~/Library/Application
// Support, on Windows %AppData%); no ocfetch variable moves it.
func UserDir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("user configuration directory: %w", err)
	}
	return filepath.Join(base, "ocfetch"), nil
}

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("rootfile: %q is not a file name", name)
	}
	return nil
}

// Read returns the contents of name, at most limit bytes. A missing file
// (or a missing directory) is an error wrapping fs.ErrNotExist. A symlink
// ([ErrSymlink]), anything but a regular file ([ErrNotRegular]) and a file
// over limit ([ErrTooLarge]) are refused. Errors name the file.
func (d Dir) Read(name string, limit int64) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	path := d.Join(name)
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer root.Close()
	f, fi, err := openChecked(root, name, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// Stat returns the Lstat of name in d: what a caller checks (owner,
// mode) about the very file [Dir.Read] reads.
func (d Dir) Stat(name string) (fs.FileInfo, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Join(name), unwrapPath(err))
	}
	defer root.Close()
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Join(name), unwrapPath(err))
	}
	return fi, nil
}

// openChecked opens name in root after checking (without following) that
// it is a regular file, and checks that what it opened is that file.
func openChecked(root *os.Root, name string, flag int) (*os.File, fs.FileInfo, error) {
	lfi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, unwrapPath(err)
	}
	if err := regular(lfi); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, flag|openFlags, 0)
	if err != nil {
		return nil, nil, unwrapPath(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, unwrapPath(err)
	}
	if !os.SameFile(lfi, fi) {
		f.Close()
		return nil, nil, ErrChanged
	}
	return f, fi, nil
}

func regular(fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return ErrSymlink
	case !m.IsRegular():
		return fmt.Errorf("%w (%s)", ErrNotRegular, typeName(m))
	}
	return nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// unwrapPath drops an *fs.PathError's own path (relative to the root):
// callers name the file by its full path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteAtomic replaces name with data so that a reader, or a crash at any
// point, sees the old file or the new one, never a torn one: the data goes
// to a new temporary file in d (created exclusively, so never through a
// symlink), is fsynced, renamed over name, and the directory is fsynced
// where the OS allows. d is created (0o700) if missing. A name that is a
// symlink, or anything but a regular file, is refused and left alone.
func (d Dir) WriteAtomic(name string, data []byte, perm os.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	path := d.Join(name)
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer root.Close()
	if fi, err := root.Lstat(name); err == nil {
		if err := regular(fi); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	tmp := "." + name + ".tmp-" + randomSuffix()
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer root.Remove(tmp) // a no-op after the rename
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := root.Rename(tmp, name); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	syncDir(root)
	return nil
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// lockPoll is how often Lock retries a held lock.
const lockPoll = 5 * time.Millisecond

// Lock takes an exclusive advisory lock on name+".lock" in d (flock on
// Unix, LockFileEx on Windows), creating the lock file and d if needed,
// and waits until ctx is done. It serialises read-modify-write cycles
// across goroutines and processes. A lock file that is a symlink
// (dangling or not) or not a regular file is refused: nothing is created
// through it. The returned function releases the lock.
func (d Dir) Lock(ctx context.Context, name string) (unlock func(), err error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	lname := name + ".lock"
	path := d.Join(lname)
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
	}
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
	}
	defer root.Close()
	// O_CREATE|O_EXCL never follows a symlink; if the name exists, it
	// is checked and opened as an existing regular file.
	f, err := root.OpenFile(lname, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f, _, err = openChecked(root, lname, os.O_RDWR)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return func() { unlockFile(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}
