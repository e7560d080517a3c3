//go:build !(linux || darwin || freebsd || netbsd || dragonfly)

package pdf

// limitSelf does nothing where there is no setrlimit (Windows): the child
// is bounded by its Go memory limit (debug.SetMemoryLimit, soft) and by
// the kill at the call's deadline only.
func limitSelf(memory int64, cpu int) error { return nil }
