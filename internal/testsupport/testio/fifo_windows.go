//go:build windows

package testio

import "testing"

// Mkfifo skips t: Windows has no named pipes in the file system. See the
// Unix version.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("no FIFOs in the Windows file system")
}
