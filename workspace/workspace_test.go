package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Resolve("", dir, "/elsewhere")
	if err != nil || ws.Root != dir {
		t.Errorf("Resolve(\"\", dir, …) = %v, %v; want the first non-empty candidate %s", ws, err, dir)
	}
	if got, want := ws.RulesPath(), filepath.Join(dir, ".oc_chat", "rules.json"); got != want {
		t.Errorf("RulesPath = %s; want %s", got, want)
	}
	if _, err := workspace.Resolve(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Resolve(a file) = %v; want 'not a directory'", err)
	}
	if _, err := workspace.Resolve(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Resolve(missing) = %v; want fs.ErrNotExist", err)
	}
	wd, _ := os.Getwd()
	if ws, err := workspace.Resolve(); err != nil || ws.Root != wd {
		t.Errorf("Resolve() = %v, %v; want the current directory %s", ws, err, wd)
	}
}

func TestReadSmallFileFailsClosed(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.json")
	os.WriteFile(regular, []byte(`{}`), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, workspace.MaxSmallFileSize+1), 0o644)
	fifo := filepath.Join(dir, "fifo")
	testio.Mkfifo(t, fifo)
	toZero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", toZero)

	tests := []struct {
		name    string
		path    string
		wantErr error
	}{
		{"regular", regular, nil},
		{"missing", filepath.Join(dir, "missing"), fs.ErrNotExist},
		{"too large", big, workspace.ErrTooLarge},
		{"fifo", fifo, workspace.ErrNotRegular},
		{"symlink to /dev/zero", toZero, workspace.ErrNotRegular},
		{"directory", dir, workspace.ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := workspace.ReadSmallFile(tc.path); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
					t.Fatalf("ReadSmallFile = %v; want %v", err, tc.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), tc.path) {
					t.Errorf("error %q does not name the file", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadSmallFile hung")
			}
		})
	}
}

func TestWriteFileAtomicAndLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".oc_chat", "counter")
	// 8 goroutines each do 10 locked read-modify-write cycles; none is lost.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				unlock, err := workspace.LockFile(context.Background(), path)
				if err != nil {
					t.Error(err)
					return
				}
				data, _ := os.ReadFile(path)
				data = append(data, 'x')
				if err := workspace.WriteFileAtomic(path, data, 0o600); err != nil {
					t.Error(err)
				}
				unlock()
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil || len(data) != 80 {
		t.Fatalf("after 80 locked increments: %d bytes, %v; want 80", len(data), err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v; want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestLockFileHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	unlock, err := workspace.LockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := workspace.LockFile(ctx, path); err == nil {
		t.Fatal("second LockFile succeeded while the first holds the lock")
	}
}

func TestReadFileLimitGrowingFile(t *testing.T) {
	// A file larger than the limit is refused whatever fstat said first;
	// a file within it is returned whole.
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte(strings.Repeat("a", 100)), 0o644)
	if data, err := workspace.ReadFileLimit(path, 100); err != nil || len(data) != 100 {
		t.Errorf("ReadFileLimit(100 bytes, limit 100) = %d bytes, %v; want 100, nil", len(data), err)
	}
	if _, err := workspace.ReadFileLimit(path, 99); !errors.Is(err, workspace.ErrTooLarge) {
		t.Errorf("ReadFileLimit(100 bytes, limit 99) = %v; want ErrTooLarge", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	if data, err := workspace.ReadSmallFile(empty); err != nil || len(data) != 0 {
		t.Errorf("ReadSmallFile(empty) = %q, %v; want empty, nil", data, err)
	}
}

func BenchmarkReadSmallFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "local_fetch.json")
	os.WriteFile(path, []byte(`{"schema_version": 1, "ports": [3000, 8080]}`), 0o644)
	b.Run("ReadSmallFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := workspace.ReadSmallFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The baseline: os.ReadFile checks nothing and goes through the poller.
	b.Run("os.ReadFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPathsJoinUnderDir: every file path is its name joined to Dir, and
// Dir is .oc_chat joined to the root, asked for once or many times, for
// roots clean or not.
func TestPathsJoinUnderDir(t *testing.T) {
	roots := []string{t.TempDir(), filepath.Join(t.TempDir(), "a", "..", "b") + string(filepath.Separator), "", "rel"}
	for _, root := range roots {
		ws := workspace.Workspace{Root: root}
		for range 2 {
			dir := ws.Dir()
			if want := filepath.Join(root, workspace.DirName); dir != want {
				t.Errorf("root %q: Dir() = %q; want %q", root, dir, want)
			}
			for name, got := range map[string]string{
				workspace.LocalFetchFile: ws.LocalFetchPath(), workspace.RulesFile: ws.RulesPath(),
				workspace.SettingsFile: ws.SettingsPath(), workspace.AuditFile: ws.AuditPath(),
			} {
				if want := filepath.Join(dir, name); got != want {
					t.Errorf("root %q: path of %s = %q; want %q", root, name, got, want)
				}
			}
		}
	}
}
