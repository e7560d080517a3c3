//go:build windows

package secretfile

import "io/fs"

// checkMode accepts the file: on Windows a file under the user's profile
// (%AppData%) is guarded by its ACL, which Go's file mode does not show.
func checkMode(string, fs.FileMode) error { return nil }
