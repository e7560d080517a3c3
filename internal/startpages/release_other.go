//go:build !linux

package startpages

// Release does nothing on this system: see the package documentation.
func Release() {}
