//go:build darwin

package sandbox

// canonical spells a real path as the kernel does (spelledOnDisk): the
// Seatbelt profile's paths must match it byte for byte.
func canonical(p string) string { return spelledOnDisk(p) }
