//go:build !unix && !windows

package search

import (
	"io/fs"
	"os"
)

// checkKeyFile accepts any key file where neither Unix permission bits
// nor a Windows DACL say who may read it.
func checkKeyFile(string, *os.File, fs.FileInfo) error { return nil }
