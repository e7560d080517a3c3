//go:build !unix

package main

import "os"

// maxRSS is not available here: coldstart times Linux processes.
func maxRSS(*os.ProcessState) (int64, bool) { return 0, false }
