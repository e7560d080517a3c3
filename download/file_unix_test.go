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

// TestCommitMode: a new file gets 0644 less the umask, as any file a
// command creates; an existing file keeps its mode or a tighter one,
// never a looser (a 0600 file the body replaces stays 0600).
func TestCommitMode(t *testing.T) {
	tests := []struct {
		name     string
		umask    int
		existing os.FileMode // 0: no file
		want     os.FileMode
	}{
		{"new, umask 022", 0o022, 0, 0o644},
		{"new, umask 077", 0o077, 0, 0o600},
		{"new, umask 027", 0o027, 0, 0o640},
		{"existing 0600", 0o022, 0o600, 0o600},
		{"existing 0640", 0o022, 0o640, 0o640},
		{"existing 0666, umask 022", 0o022, 0o666, 0o644},
		{"existing 0755", 0o022, 0o755, 0o644},
		{"existing 0400", 0o022, 0o400, 0o400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := syscall.Umask(tc.umask)
			defer syscall.Umask(old)
			path := filepath.Join(t.TempDir(), "out")
			if tc.existing != 0 {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			f, err := NewFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Discard()
			f.reset()
			if fi, err := f.tmp.Stat(); err != nil || fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("temporary file %v, %v; want it private (0600) while the body is written", fi, err)
			}
			if err := commitBody(t, f, "new"); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("mode of %s = %04o; want %04o", path, got, tc.want)
			}
		})
	}
}
