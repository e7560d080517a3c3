package download

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// The destinations NewFile refuses, in a *DestinationError.
var (
	// ErrNoDirectory: the destination's directory does not exist (or is
	// not a directory).
	ErrNoDirectory = errors.New("the directory does not exist")
	// ErrIsDirectory: the destination is itself a directory.
	ErrIsDirectory = errors.New("the destination is a directory")
	// ErrNotRegular: the destination exists and is a FIFO, a device, a
	// socket or anything else that is not a regular file (or a symlink to
	// one): renaming the body over it would replace it — as root, a
	// device node such as /dev/null — and writing into it is not what
	// the file is for.
	ErrNotRegular = errors.New("the destination is not a regular file")
)

// ErrIncomplete is Commit's refusal to keep more bytes than the response
// body that passed through the Transport held: the file is never padded.
var ErrIncomplete = errors.New("fewer bytes passed through than the body read")

// ErrChanged is Commit's refusal when the temporary file's name no longer
// leads to the file it wrote (someone who can write in the destination's
// directory replaced it): nothing is renamed into place.
var ErrChanged = errors.New("the temporary file was replaced before it was renamed into place")

// DestinationError is NewFile's refusal of a destination, found before
// any request is made. Its text names the path and the directory, which
// are the caller's own.
type DestinationError struct {
	Path string // the destination, as given
	Dir  string // its directory
	Err  error  // ErrNoDirectory, ErrIsDirectory or ErrNotRegular
	// Kind is what the destination is when Err is ErrNotRegular ("a
	// FIFO", "a device", "a socket").
	Kind string
}

func (e *DestinationError) Error() string {
	switch {
	case errors.Is(e.Err, ErrIsDirectory):
		return e.Path + " is a directory"
	case errors.Is(e.Err, ErrNotRegular):
		return e.Path + " is " + e.Kind + ", not a regular file"
	}
	return e.Path + ": directory " + e.Dir + " does not exist"
}

func (e *DestinationError) Unwrap() error { return e.Err }

// File collects a response body in a temporary file next to the
// destination and renames it into place only when the call delivered a
// whole body (Commit), so a refused or failed call leaves no file behind
// (Discard). A nil *File ignores every call but Commit.
type File struct {
	path string
	tmp  *os.File
	err  error // the first write error; reported by Commit
	n    int64 // the bytes of the current response written
	done bool
	// mode is 0644 less the umask, as the system created the temporary
	// file: the mode of a new destination.
	mode os.FileMode
}

// NewFile checks that path's directory exists and that path, if it
// exists, is a regular file (or a symlink to one, which Commit replaces),
// not a directory, a FIFO or a device, so a typo fails before any request
// (a *DestinationError); the temporary file is created with the first
// response.
func NewFile(path string) (*File, error) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, &DestinationError{Path: path, Dir: dir, Err: ErrNoDirectory}
	}
	if err := checkDestination(path); err != nil {
		return nil, err
	}
	return &File{path: path}, nil
}

// checkDestination refuses a path that exists (through symlinks) and is
// not a regular file. A missing path, or a dangling symlink, is fine.
func checkDestination(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil || fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return &DestinationError{Path: path, Dir: filepath.Dir(path), Err: ErrIsDirectory}
	}
	return &DestinationError{Path: path, Dir: filepath.Dir(path), Err: ErrNotRegular, Kind: securefile.TypeName(fi.Mode())}
}

// reset starts a new body: the previous response (a redirect) is dropped.
func (f *File) reset() {
	if f == nil || f.err != nil {
		return
	}
	f.n = 0
	if f.tmp == nil {
		f.tmp, f.err = f.createTemp()
		return
	}
	if err := f.tmp.Truncate(0); err != nil {
		f.err = err
		return
	}
	_, f.err = f.tmp.Seek(0, io.SeekStart)
}

// createTemp creates the temporary file, hidden, next to the destination
// (so that Commit's rename stays on one file system), with a name nobody
// can guess. It is created 0644 so that the system applies the umask,
// which f.mode records, and is then 0600 while the body is written.
func (f *File) createTemp() (*os.File, error) {
	dir, base := filepath.Dir(f.path), filepath.Base(f.path)
	for {
		var rnd [8]byte
		rand.Read(rnd[:]) // never fails (crypto/rand.Read)
		t, err := os.OpenFile(filepath.Join(dir, "."+base+".ocfetch-"+hex.EncodeToString(rnd[:])),
			os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		fi, err := t.Stat()
		if err == nil {
			f.mode = fi.Mode().Perm()
			err = t.Chmod(0o600 & f.mode)
		}
		if err != nil {
			t.Close()
			os.Remove(t.Name())
			return nil, err
		}
		return t, nil
	}
}

func (f *File) write(p []byte) {
	if f == nil || f.err != nil || f.tmp == nil {
		return
	}
	var n int
	n, f.err = f.tmp.Write(p)
	f.n += int64(n)
}

// Commit keeps the first n bytes (the fetch tool reads one byte past its
// cap to see whether the body is longer; n is its Output.Bytes), syncs the
// file, gives it its mode (0644 less the umask; no looser than the file it
// replaces) and renames it into place. A file that got no
// response body at all is committed empty. Its error ("write PATH: …")
// wraps the failure; the first write error of the body is reported here.
func (f *File) Commit(n int64) error {
	if f.err != nil {
		return fmt.Errorf("write %s: %w", f.path, f.err)
	}
	if f.tmp == nil { // no response body at all
		var err error
		if f.tmp, err = f.createTemp(); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	if n > f.n {
		// Truncate would pad the file with zeros: the body the caller
		// counted is not the one that passed by.
		return fmt.Errorf("write %s: %w (%d bytes passed by, %d read)", f.path, ErrIncomplete, f.n, n)
	}
	if err := f.tmp.Truncate(n); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	// A new file gets 0644 less the umask; a file replaced keeps its mode
	// or a tighter one, never a looser (a 0600 file stays 0600). The mode
	// is set on the open file, never by name: a name someone replaced
	// with a symlink meanwhile would pass the chmod on to the file it
	// points at.
	mode := f.mode
	if fi, err := os.Stat(f.path); err == nil && fi.Mode().IsRegular() {
		mode &= fi.Mode().Perm()
	}
	if err := f.tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := f.tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	held, err := f.tmp.Stat()
	if err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := f.tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	// The name is renamed into place only while it is still the file
	// written: not whatever was put in its place.
	if fi, err := os.Lstat(f.tmp.Name()); err != nil || !os.SameFile(held, fi) {
		return fmt.Errorf("write %s: %w", f.path, ErrChanged)
	}
	// Looked at again: a FIFO or device put there since NewFile is not
	// replaced.
	if err := checkDestination(f.path); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// Discard removes the temporary file unless Commit renamed it.
func (f *File) Discard() {
	if f == nil || f.done || f.tmp == nil {
		return
	}
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
