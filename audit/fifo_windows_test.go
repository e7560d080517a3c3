//go:build windows

package audit_test

import "errors"

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }
