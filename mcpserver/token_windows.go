//go:build windows

package mcpserver

import "io/fs"

// checkTokenMode: on Windows a file under the user's profile
// (%AppData%) is protected by its ACL, which Go's file mode does not show.
func checkTokenMode(fs.FileInfo) error { return nil }
