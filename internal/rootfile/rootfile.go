// Package rootfile reads and writes the small files of one directory that
// ocfetch keeps outside a workspace: the user's configuration directory
// (os.UserConfigDir()/ocfetch: trust.json, the user's rules.json) and the
// directory of the administrator's policy file.
//
// It is a file-name view of [securefile], which holds the rules for every
// file ocfetch reads or writes: every name is one file directly in the
// directory; the directory and the name are opened through an [os.Root]
// and refused with [ErrSymlink] when either is a symlink (dangling or not),
// never followed; reads accept regular files only, bounded in size, and
// never block on a FIFO; writes are atomic and never create a file anywhere
// but in the directory. What this package adds: names checked to be plain
// file names, and a directory it creates is private (0700), since the trust
// store and the user's rules are nobody else's business.
//
//	d := rootfile.Dir{Path: dir}
//	unlock, err := d.Lock(ctx, "trust.json")
//	defer unlock()
//	data, err := d.Read("trust.json", 1<<20)
//	err = d.WriteAtomic("trust.json", data, 0o600)
package rootfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// The errors of [securefile], which every operation here wraps.
var (
	ErrSymlink    = securefile.ErrSymlink
	ErrNotRegular = securefile.ErrNotRegular
	ErrTooLarge   = securefile.ErrTooLarge
	ErrChanged    = securefile.ErrChanged
)

// dirPerm is the mode of a directory this package creates.
const dirPerm = 0o700

// Dir is a directory whose files are read and written through an os.Root.
// Path should be absolute.
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

// File returns the path of name in d, or an error when name is not a
// plain file name.
func (d Dir) File(name string) (string, error) { return d.path(name) }

func (d Dir) path(name string) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("rootfile: %q is not a file name", name)
	}
	return d.Join(name), nil
}

// mkdir creates d (0700, and its parents) when it is missing; an existing
// d is left to securefile to judge.
func (d Dir) mkdir() error {
	if _, err := os.Lstat(d.Path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d.Path, dirPerm); err != nil {
			return fmt.Errorf("%s: %w", d.Path, err)
		}
	}
	return nil
}

// Read returns the contents of name, at most limit bytes. A missing file
// (or a missing directory) is an error wrapping fs.ErrNotExist. A symlink
// ([ErrSymlink]), anything but a regular file ([ErrNotRegular]) and a file
// over limit ([ErrTooLarge]) are refused. Errors name the file.
func (d Dir) Read(name string, limit int64) ([]byte, error) {
	path, err := d.path(name)
	if err != nil {
		return nil, err
	}
	return securefile.ReadFile(path, limit)
}

// Stat returns the Lstat of name in d: what a caller checks (owner,
// mode) about the very file [Dir.Read] reads.
func (d Dir) Stat(name string) (fs.FileInfo, error) {
	path, err := d.path(name)
	if err != nil {
		return nil, err
	}
	return securefile.Lstat(path)
}

// WriteAtomic replaces name with data so that a reader, or a crash at any
// point, sees the old file or the new one, never a torn one
// ([securefile.WriteFile]). d is created (0700) if missing. A name that is
// a symlink, or anything but a regular file, is refused and left alone.
// The file is given perm, or the mode of the file it replaces where that
// is tighter: rewriting a file never loosens its mode (on Windows, whose
// mode bits stand only for the read-only attribute, it is given perm).
func (d Dir) WriteAtomic(name string, data []byte, perm os.FileMode) error {
	path, err := d.path(name)
	if err != nil {
		return err
	}
	if err := d.mkdir(); err != nil {
		return err
	}
	return securefile.WriteFile(path, data, securefile.NotLooser(path, perm))
}

// Lock takes an exclusive advisory lock on name+".lock" in d
// ([securefile.Lock]: flock on Unix, LockFileEx on Windows), creating the
// lock file and d (0700) if needed, and waits until ctx is done. A lock
// file that is a symlink or not a regular file is refused: nothing is
// created through it. The returned function releases the lock.
func (d Dir) Lock(ctx context.Context, name string) (unlock func(), err error) {
	path, err := d.path(name)
	if err != nil {
		return nil, err
	}
	if err := d.mkdir(); err != nil {
		return nil, err
	}
	return securefile.Lock(ctx, path)
}
