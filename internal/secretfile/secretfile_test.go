package secretfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

const secret = "s3cret-value-0123456789"

func check(s string) error {
	if len(s) < 16 || strings.ContainsAny(s, " \t") {
		return errors.New("does not hold one secret")
	}
	return nil
}

func fresh() (string, error) { return secret, nil }

// TestLoadOrCreate: a missing file is created (0700 directory, 0600
// file, whole, no temporary file left) and read back the next time.
func TestLoadOrCreate(t *testing.T) {
	for _, tc := range []struct {
		name string
		link func(r *os.Root, old, new string) error
	}{
		{"hard link", nil},
		{"no hard links on this file system", func(*os.Root, string, string) error { return errors.New("operation not supported") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.link != nil {
				saved := link
				link = tc.link
				t.Cleanup(func() { link = saved })
			}
			dir := filepath.Join(t.TempDir(), "cfg", "ocfetch")
			path := filepath.Join(dir, MCPToken)
			got, created, err := LoadOrCreate(path, fresh, check)
			if err != nil || !created || got != secret {
				t.Fatalf("first call = %q, %v, %v; want the fresh secret, created", got, created, err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != secret+"\n" {
				t.Errorf("file holds %q, %v; want the secret and a newline", b, err)
			}
			if runtime.GOOS != "windows" {
				for p, want := range map[string]fs.FileMode{path: 0o600, dir: 0o700} {
					if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
						t.Errorf("%s: mode %v, %v; want %04o", p, fi.Mode(), err, want)
					}
				}
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("directory holds %q; want the secret file only", names)
			}
			again, created, err := LoadOrCreate(path, func() (string, error) { return "another-secret-0123456789", nil }, check)
			if err != nil || created || again != secret {
				t.Errorf("second call = %q, %v, %v; want the file's secret, not created", again, created, err)
			}
		})
	}
}

// TestLoadOrCreateRace: a file another process created after the read
// found none is never replaced: its secret is returned.
func TestLoadOrCreateRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), ProxyCredentials)
	const theirs = "their-secret-0123456789"
	got, created, err := LoadOrCreate(path, func() (string, error) {
		if err := os.WriteFile(path, []byte(theirs+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return secret, nil
	}, check)
	if err != nil || created || got != theirs {
		t.Errorf("= %q, %v, %v; want the other process's secret, not created", got, created, err)
	}
	if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("directory holds %q; want the secret file only", names)
	}
}

// TestLoadOrCreateRefuses: what is not a private regular file of one
// valid secret is refused by name, never replaced, never followed, and
// the error never holds the secret.
func TestLoadOrCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode fs.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	target := write("target", secret+"\n", 0o600)
	symlink := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		return p
	}
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		testio.Mkfifo(t, p)
		return p
	}
	tests := []struct {
		name string
		path func() string
		want error  // errors.Is
		text string // in the message
		unix bool
	}{
		{"group-readable", func() string { return write("group-r", secret, 0o640) }, ErrExposed, "chmod 600", true},
		{"others-readable", func() string { return write("other-r", secret, 0o604) }, ErrExposed, "mode 0604", true},
		{"group-writable", func() string { return write("group-w", secret, 0o620) }, ErrExposed, "chmod 600", true},
		{"not a secret", func() string { return write("words", "two words here\n", 0o600) }, nil, "does not hold one secret", false},
		{"saved with a BOM", func() string { return write("bom", "\ufeff"+secret+"\r\n", 0o600) }, ErrByteOrderMark, "save it without a BOM", false},
		{"too large", func() string { return write("large", strings.Repeat("a", MaxSize+1), 0o600) }, securefile.ErrTooLarge, "", false},
		{"a directory", func() string { return dir }, securefile.ErrNotRegular, "not a regular file", false},
		{"a symlink to a good file", func() string { return symlink("link", target) }, securefile.ErrSymlink, "", false},
		{"a dangling symlink", func() string { return symlink("dangling", filepath.Join(dir, "planted")) }, securefile.ErrSymlink, "", false},
		{"a FIFO", func() string { return fifo("fifo") }, securefile.ErrNotRegular, "", true},
		{"a symlinked directory", func() string { return filepath.Join(symlink("linkdir", t.TempDir()), MCPToken) }, securefile.ErrSymlink, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unix && runtime.GOOS == "windows" {
				t.Skip("Unix modes and FIFOs")
			}
			p := tc.path()
			got, created, err := LoadOrCreate(p, fresh, check)
			if err == nil || created || got != "" {
				t.Fatalf("= %q, %v, %v; want an error", got, created, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v; want %v", err, tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, tc.text) || strings.Contains(msg, secret) {
				t.Errorf("error %q; want it to name %s and %q, without the secret", msg, p, tc.text)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(dir, "planted")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created through the dangling symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != secret+"\n" {
		t.Errorf("the symlink's target changed: %q", b)
	}
}

// TestLoadOrCreateFreshFails: an error making the secret is returned and
// nothing is created.
func TestLoadOrCreateFreshFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), MCPToken)
	boom := errors.New("no randomness")
	if _, created, err := LoadOrCreate(path, func() (string, error) { return "", boom }, check); !errors.Is(err, boom) || created {
		t.Errorf("= %v, %v; want the fresh function's error", created, err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file exists after a failed create: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	for _, name := range Names {
		p, err := DefaultPath(name)
		if err != nil {
			t.Skipf("no user configuration directory: %v", err)
		}
		if filepath.Base(p) != name || filepath.Base(filepath.Dir(p)) != "ocfetch" {
			t.Errorf("DefaultPath(%q) = %s; want …/ocfetch/%s", name, p, name)
		}
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
