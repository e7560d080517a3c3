//go:build !unix

package mcpstdio

import (
	"io"
	"os"
)

// PollableInput returns f: outside Unix, stdin is read as it is.
func PollableInput(f *os.File, _ ...*os.File) io.ReadCloser { return f }
