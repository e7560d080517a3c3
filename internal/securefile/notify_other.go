//go:build !linux

package securefile

import "errors"

// openPlatformKernel: no change notification is relied on here (kqueue
// would need a descriptor per file, Windows caches nothing): every
// snapshot is checked with stats.
func openPlatformKernel() (kernel, error) {
	return nil, errors.ErrUnsupported
}

func localFileSystem(string) bool { return false }
