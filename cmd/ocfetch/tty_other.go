//go:build !unix && !windows

package main

import "os"

// openControllingTerminal: no controlling terminal is known on this
// system; ok is always false.
func openControllingTerminal() (*os.File, bool) { return nil, false }
