//go:build unix && !linux && !darwin && !freebsd && !netbsd

package trust

// identify returns the directory's device and inode. These systems'
// stat(2) gives no birth time ocfetch reads, so trust falls back to the
// marker (see the package documentation).
func identify(path string) (ident, error) { return statIdent(path) }
