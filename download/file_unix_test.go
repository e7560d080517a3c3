//go:build unix

package download

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// commitBody writes body through f as one response and commits it.
func commitBody(t *testing.T, f *File, body string) error {
	t.Helper()
	f.reset()
	f.write([]byte(body))
	return f.Commit(int64(len(body)))
}

// TestNewFileRefusesNonRegular: -o naming a FIFO, a device or a socket is
// refused before any request. Renaming the body over it would replace
// the device node (as root, /dev/null itself) or the FIFO with a
// regular file; writing into it is not what "get -o" does.
func TestNewFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link-to-fifo")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, kind string
	}{
		{"a FIFO", fifo, "a FIFO"},
		{"a symlink to a FIFO", link, "a FIFO"},
		{"a device", os.DevNull, "a device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skip(err)
			}
			f, err := NewFile(tc.path)
			var de *DestinationError
			want := tc.path + " is " + tc.kind + ", not a regular file"
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &de) || err.Error() != want {
				if f != nil {
					f.Discard()
				}
				t.Fatalf("NewFile(%q) = %v; want a *DestinationError %q wrapping ErrNotRegular", tc.path, err, want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%s holds %d entries; want the FIFO and the link only", dir, len(entries))
	}
}

// TestCommitRefusesNonRegularMadeSince: a FIFO put at the destination
// after NewFile is not replaced by Commit, and nothing is left behind.
func TestCommitRefusesNonRegularMadeSince(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	err = commitBody(t, f, "body")
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) {
		t.Errorf("Commit over a FIFO = %v; want ErrNotRegular naming %s", err, path)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s after Commit: %v, %v; want the FIFO left alone", path, fi, err)
	}
	f.Discard()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%s holds %d entries; want the FIFO only", dir, len(entries))
	}
}

// TestCommitChmodsOnlyItsOwnFile: if the temporary file's name is made a
// symlink to another file before Commit (someone who can write in the
// destination's directory), Commit changes neither that file's mode nor
// what the destination is, and says so.
func TestCommitChmodsOnlyItsOwnFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(victim, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out")
	f, err := NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	f.reset()
	f.write([]byte("body"))
	tmp := f.tmp.Name()
	if err := os.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, tmp); err != nil {
		t.Fatal(err)
	}
	err = f.Commit(4)
	if fi, serr := os.Stat(victim); serr != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v after Commit; want mode 0600 untouched", victim, fi, serr)
	}
	if !errors.Is(err, ErrChanged) {
		t.Errorf("Commit after its temporary file was replaced = %v; want ErrChanged", err)
	}
	if fi, lerr := os.Lstat(path); lerr == nil {
		t.Errorf("%s is %v after a refused Commit; want no file", path, fi.Mode())
	}
}
