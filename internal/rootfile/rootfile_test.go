package rootfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestReadWrite(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "ocfetch")}
	if _, err := d.Read("a.json", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read in a missing directory = %v; want fs.ErrNotExist", err)
	}
	if err := d.WriteAtomic("a.json", []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read("a.json", 10)
	if err != nil || string(got) != "hello" {
		t.Fatalf("Read = %q, %v; want hello", got, err)
	}
	if _, err := d.Read("a.json", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over the limit = %v; want ErrTooLarge", err)
	}
	entries, _ := os.ReadDir(d.Path)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a write; want 1 (no temporary left)", len(entries))
	}
	if err := os.Mkdir(d.Join("dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read("dir.json", 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read of a directory = %v; want ErrNotRegular", err)
	}
	if err := d.WriteAtomic("dir.json", nil, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteAtomic over a directory = %v; want ErrNotRegular", err)
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`} {
		if _, err := d.Read(name, 10); err == nil {
			t.Errorf("Read(%q) = nil error; want a refusal", name)
		}
	}
}

// Symlinks are refused by name for every operation, and nothing is
// created or changed where they point.
func TestSymlinksRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	d := Dir{Path: filepath.Join(base, "cfg")}
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "real.json"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Join("inside.json"), []byte("inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"out.json":      filepath.Join(base, "real.json"),
		"in.json":       "inside.json",
		"dangling.json": outside,
		"x.json.lock":   outside + ".lock",
		"y.json.lock":   "inside-lock",
	}
	for name, target := range links {
		if err := os.Symlink(target, d.Join(name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"out.json", "in.json", "dangling.json"} {
		if _, err := d.Read(name, 100); !errors.Is(err, ErrSymlink) {
			t.Errorf("Read(%s) = %v; want ErrSymlink", name, err)
		}
		if err := d.WriteAtomic(name, []byte("new"), 0o600); !errors.Is(err, ErrSymlink) {
			t.Errorf("WriteAtomic(%s) = %v; want ErrSymlink", name, err)
		}
	}
	for _, name := range []string{"x.json", "y.json"} {
		if unlock, err := d.Lock(context.Background(), name); !errors.Is(err, ErrSymlink) {
			if err == nil {
				unlock()
			}
			t.Errorf("Lock(%s) = %v; want ErrSymlink", name, err)
		}
	}
	for _, p := range []string{outside, outside + ".lock", d.Join("inside-lock")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists after the refused operations (err %v)", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "real.json")); string(b) != "outside" {
		t.Errorf("the link's target now holds %q", b)
	}
	if b, _ := os.ReadFile(d.Join("inside.json")); string(b) != "inside" {
		t.Errorf("inside.json now holds %q", b)
	}
}

// The lock serialises read-modify-write cycles: no increment is lost.
func TestLockSerialises(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			unlock, err := d.Lock(ctx, "count")
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			b, err := d.Read("count", 100)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Error(err)
				return
			}
			if err := d.WriteAtomic("count", append(b, 'x'), 0o600); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, err := d.Read("count", 100)
	if err != nil || len(b) != n {
		t.Errorf("count = %q, %v; want %d bytes", b, err, n)
	}
}

func TestLockHonoursContext(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	unlock, err := d.Lock(context.Background(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Lock(ctx, "f"); !errors.Is(err, context.Canceled) {
		t.Errorf("Lock of a held lock with a cancelled context = %v; want context.Canceled", err)
	}
}
