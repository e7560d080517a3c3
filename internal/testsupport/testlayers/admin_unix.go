//go:build !windows

package testlayers

import (
	"os"
	"strconv"
	"sync"
)

// Admin is the managed policy's administrator check in tests: the test's
// own user (its uid) owns the files it writes.
func Admin(owner string) bool { return owner == uid() }

// uid is the test's uid, asked once (Admin runs on every decision of a
// benchmark: a system call there would be measured as the decision's).
var uid = sync.OnceValue(func() string { return strconv.Itoa(os.Getuid()) })
