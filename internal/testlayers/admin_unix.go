//go:build !windows

package testlayers

import (
	"os"
	"strconv"
)

// Admin is the managed policy's administrator check in tests: the test's
// own user (its uid) owns the files it writes.
func Admin(owner string) bool { return owner == strconv.Itoa(os.Getuid()) }
