package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any point, sees either the old file or the new one, never a torn one: the
// data goes to a temporary file in the same directory, is fsynced, renamed
// over path, and the directory is fsynced. The directory is created if
// missing.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every filesystem syncs directories
		d.Close()
	}
	return nil
}

// LockFile takes an exclusive advisory lock (flock) on path+".lock",
// creating it if needed, serialising read-modify-write cycles across
// goroutines and processes. It waits until ctx is done. The returned
// function releases the lock.
func LockFile(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l := flock.New(path + ".lock")
	ok, err := l.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path+".lock", err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: not acquired", path+".lock")
	}
	return func() { _ = l.Unlock() }, nil
}
