//go:build !unix

package mcpserver

import (
	"io"
	"os"
)

// pollableInput returns f: outside Unix, stdin is read as it is.
func pollableInput(f *os.File, _ ...*os.File) io.ReadCloser { return f }
