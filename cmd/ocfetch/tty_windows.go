//go:build windows

package main

import "os"

// openControllingTerminal: ocfetch run has no sandbox on Windows, and its
// proxy does not ask there (a console question would compete with the
// command's own console input); ok is always false.
func openControllingTerminal() (*os.File, bool) { return nil, false }
