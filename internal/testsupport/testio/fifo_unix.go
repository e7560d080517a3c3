//go:build unix

package testio

import (
	"syscall"
	"testing"
)

// Mkfifo makes a named pipe at path (mode 0644), for tests that check a
// reader refuses one without hanging; it fails t if it cannot. On Windows,
// which has no named pipes in the file system, it skips t.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}
