package securefile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
)

// TestMain lets the test binary act as a second process holding a lock
// (see TestLockAcrossProcesses).
func TestMain(m *testing.M) {
	if path := os.Getenv("SECUREFILE_TEST_LOCK"); path != "" {
		os.Exit(lockChild(path))
	}
	os.Exit(m.Run())
}

// lockChild does 20 locked read-increment-write cycles of path.
func lockChild(path string) int {
	for range 20 {
		if err := increment(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func increment(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unlock, err := securefile.Lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := securefile.ReadFile(path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return securefile.WriteFile(path, append(data, 'x'), 0o600)
}

// layout is a root with its ocfetch directory, <root>/dir, and a directory
// outside it that a planted symlink points into.
type layout struct {
	root, dir, outside string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	base := t.TempDir()
	l := layout{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	l.dir = filepath.Join(l.root, ".oc_chat")
	for _, d := range []string{l.root, l.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(l.outside, "victim"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return l
}

// tree returns every entry under dir: files with their contents, links
// with their targets, directories as "dir".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			got[rel] = "-> " + target
		case d.IsDir():
			got[rel] = "dir"
		default:
			b, _ := os.ReadFile(path)
			got[rel] = string(b)
		}
		return nil
	})
	return got
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlink:", err) // Windows without the privilege
	}
}

// ops are the five things ocfetch does to a file in its directory.
var ops = []struct {
	name string
	do   func(path string) error
}{
	{"ReadFile", func(p string) error { _, err := securefile.ReadFile(p, 1<<10); return err }},
	{"WriteFile", func(p string) error { return securefile.WriteFile(p, []byte("new\n"), 0o644) }},
	{"Lock", func(p string) error {
		unlock, err := securefile.Lock(context.Background(), strings.TrimSuffix(p, ".lock"))
		if err == nil {
			unlock()
		}
		return err
	}},
	{"OpenAppend", func(p string) error {
		f, err := securefile.OpenAppend(p, 0o600)
		if err == nil {
			_, err = f.WriteString("line\n")
			f.Close()
		}
		return err
	}},
	{"OpenRead", func(p string) error {
		f, err := securefile.OpenRead(p)
		if err == nil {
			f.Close()
		}
		return err
	}},
}

// TestSymlinksNeverFollowed plants a symlink at the directory and at the
// file, pointing outside (to a directory, a file, a missing name) and
// inside, and checks that every operation refuses it by name with
// ErrSymlink and that nothing outside, nor the link, changed.
func TestSymlinksNeverFollowed(t *testing.T) {
	plants := []struct {
		name  string
		plant func(t *testing.T, l layout, file string) // file: the base name operated on
	}{
		{"directory links outside", func(t *testing.T, l layout, file string) {
			symlink(t, l.outside, l.dir)
		}},
		{"directory links to a sibling inside", func(t *testing.T, l layout, file string) {
			if err := os.Mkdir(filepath.Join(l.root, "other"), 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, "other", l.dir)
		}},
		{"directory link dangles", func(t *testing.T, l layout, file string) {
			symlink(t, filepath.Join(l.outside, "newdir"), l.dir)
		}},
		{"file links to a file outside", func(t *testing.T, l layout, file string) {
			symlink(t, filepath.Join(l.outside, "victim"), filepath.Join(l.dir, file))
		}},
		{"file link dangles outside", func(t *testing.T, l layout, file string) {
			symlink(t, filepath.Join(l.outside, "created"), filepath.Join(l.dir, file))
		}},
		{"file links to a file inside", func(t *testing.T, l layout, file string) {
			if err := os.MkdirAll(l.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(l.dir, "real"), []byte("keep\n"), 0o644)
			symlink(t, "real", filepath.Join(l.dir, file))
		}},
	}
	for _, op := range ops {
		for _, p := range plants {
			t.Run(op.name+"/"+p.name, func(t *testing.T) {
				l := newLayout(t)
				file := "rules.json"
				if op.name == "Lock" {
					file = "rules.json.lock"
				}
				p.plant(t, l, file)
				beforeOut, beforeRoot := tree(t, l.outside), tree(t, l.root)
				path := filepath.Join(l.dir, file)
				err := op.do(path)
				if !errors.Is(err, securefile.ErrSymlink) {
					t.Fatalf("%s(%s) = %v; want ErrSymlink", op.name, path, err)
				}
				wantName := path
				if strings.HasPrefix(p.name, "directory") {
					wantName = l.dir
				}
				if !strings.Contains(err.Error(), wantName) {
					t.Errorf("error %q does not name %s", err, wantName)
				}
				if diff := cmp.Diff(beforeOut, tree(t, l.outside)); diff != "" {
					t.Errorf("outside the directory changed (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(beforeRoot, tree(t, l.root)); diff != "" {
					t.Errorf("the root changed (-before +after):\n%s", diff)
				}
			})
		}
	}
}

func TestReadFileFailsClosed(t *testing.T) {
	l := newLayout(t)
	os.Mkdir(l.dir, 0o755)
	write := func(name string, data []byte) string {
		p := filepath.Join(l.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(l.dir, "fifo")
	tests := []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr error
	}{
		{"regular", write("ok.json", []byte(`{}`)), 10, `{}`, nil},
		{"exactly the limit", write("ten", []byte("0123456789")), 10, "0123456789", nil},
		{"empty", write("empty", nil), 10, "", nil},
		{"one byte over", write("eleven", []byte("0123456789a")), 10, "", securefile.ErrTooLarge},
		{"missing file", filepath.Join(l.dir, "missing"), 10, "", fs.ErrNotExist},
		{"missing directory", filepath.Join(l.root, "nodir", "f"), 10, "", fs.ErrNotExist},
		{"a directory", l.dir + string(filepath.Separator) + ".", 10, "", securefile.ErrNotRegular},
		{"the directory is a file", filepath.Join(write("plain", nil), "f"), 10, "", securefile.ErrNotDir},
		{"fifo", fifo, 10, "", securefile.ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "fifo" {
				testio.Mkfifo(t, fifo)
			}
			done := make(chan struct{})
			var got []byte
			var err error
			go func() { got, err = securefile.ReadFile(tc.path, tc.limit); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile hung")
			}
			if tc.wantErr == nil {
				if err != nil || string(got) != tc.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ReadFile = %v; want %v", err, tc.wantErr)
			}
			if tc.name != "a directory" && !strings.Contains(err.Error(), strings.TrimSuffix(tc.path, "/f")) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	l := newLayout(t)
	path := filepath.Join(l.dir, "settings.json")
	// The directory is created on the first write.
	if err := securefile.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := securefile.WriteFile(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "two" {
		t.Errorf("after two writes: %q, %v; want \"two\"", got, err)
	}
	if fi, err := os.Stat(path); err != nil || (fi.Mode().Perm() != 0o644 && !isWindows()) {
		t.Errorf("mode = %v, %v; want 0644", fi.Mode().Perm(), err)
	}
	if got := tree(t, l.dir); len(got) != 1 {
		t.Errorf("directory holds %v; want settings.json only (no temporary file left)", got)
	}
	// A directory where the file should be is refused and left as it is.
	dirAt := filepath.Join(l.dir, "sub")
	os.Mkdir(dirAt, 0o755)
	if err := securefile.WriteFile(dirAt, []byte("x"), 0o644); !errors.Is(err, securefile.ErrNotRegular) {
		t.Errorf("WriteFile(a directory) = %v; want ErrNotRegular", err)
	}
	// EnsureDir refuses a file where the directory should be.
	if err := securefile.EnsureDir(path); !errors.Is(err, securefile.ErrNotDir) {
		t.Errorf("EnsureDir(a file) = %v; want ErrNotDir", err)
	}
}

func TestOpenAppendAppends(t *testing.T) {
	l := newLayout(t)
	path := filepath.Join(l.dir, "audit.jsonl")
	for i := range 3 {
		f, err := securefile.OpenAppend(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "line %d\n", i)
		f.Close()
	}
	if got, _ := os.ReadFile(path); string(got) != "line 0\nline 1\nline 2\n" {
		t.Errorf("log = %q; want three lines in order", got)
	}
}

func TestLockGoroutines(t *testing.T) {
	path := filepath.Join(newLayout(t).dir, "counter")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if err := increment(path); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(path); len(got) != 80 {
		t.Errorf("after 80 locked increments the file holds %d bytes; want 80", len(got))
	}
}

func TestLockAcrossProcesses(t *testing.T) {
	path := filepath.Join(newLayout(t).dir, "counter")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range 3 {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "SECUREFILE_TEST_LOCK="+path)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	got, _ := os.ReadFile(path)
	if want := 3 * 20; len(got) != want {
		t.Errorf("after %d locked increments by 3 processes the file holds %d bytes; want %d", want, len(got), want)
	}
}

func TestLockHonoursContext(t *testing.T) {
	path := filepath.Join(newLayout(t).dir, "f")
	unlock, err := securefile.Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = securefile.Lock(ctx, path)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), path+".lock") {
		t.Fatalf("second Lock = %v; want DeadlineExceeded naming %s.lock", err, path)
	}
}

func isWindows() bool { return filepath.Separator == '\\' }

// TestLockLeavesNoFile: on Unix the lock file is removed when the lock is
// released, and removing it does not break mutual exclusion: goroutines
// that waited on the removed file take the lock on the one at the name.
func TestLockLeavesNoFile(t *testing.T) {
	path := filepath.Join(newLayout(t).dir, "rules.json")
	var inside, most atomic.Int32 // most: the largest count of holders seen
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				unlock, err := securefile.Lock(context.Background(), path)
				if err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				runtime.Gosched()
				inside.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d holders at once; want 1", m)
	}
	_, err := os.Lstat(path + ".lock")
	if isWindows() {
		if err != nil {
			t.Errorf("Windows keeps the lock file: %v", err)
		}
		return
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after every unlock %s.lock remains: %v", path, err)
	}
}

// TestRelativeParentPaths: a relative path whose directory is ".." or
// "." (a flag value such as --auth-file ../cred) names the file it
// names in a shell, not an escape from a root.
func TestRelativeParentPaths(t *testing.T) {
	top := t.TempDir()
	sub := filepath.Join(top, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(top, "up.txt"), filepath.Join(sub, "here.txt")} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(sub)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join("..", "up.txt"), "up.txt"},
		{filepath.Join(".", "here.txt"), "here.txt"},
		{"here.txt", "here.txt"},
		{filepath.Join("..", "sub", "here.txt"), "here.txt"},
	} {
		f, err := securefile.OpenRead(tc.path)
		if err != nil {
			t.Errorf("OpenRead(%q): %v", tc.path, err)
			continue
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != tc.want {
			t.Errorf("OpenRead(%q) read %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
}
