//go:build !unix

package search

import "io/fs"

// checkKeyMode accepts any mode where Unix permission bits do not say who
// may read the file (Windows: the ACL of the user's profile directory does).
func checkKeyMode(fs.FileMode) error { return nil }
