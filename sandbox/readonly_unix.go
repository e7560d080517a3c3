//go:build unix

package sandbox

import "golang.org/x/sys/unix"

// writeAccess reports whether this process may create files in dir, as
// access(2) says: EROFS for a read-only mount.
func writeAccess(dir string) error { return unix.Access(dir, unix.W_OK) }
