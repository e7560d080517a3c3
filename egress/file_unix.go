//go:build unix

package egress

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK, so that a FIFO does
// not wait for a writer; regular files ignore the flag.
func openNoBlock(path string) (*os.File, error) {
	return openFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
