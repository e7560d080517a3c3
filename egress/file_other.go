//go:build !unix

package egress

import "os"

// openNoBlock opens path for reading. Outside Unix there are no FIFOs in
// the file system to block on.
func openNoBlock(path string) (*os.File, error) {
	return openFile(path, os.O_RDONLY, 0)
}
