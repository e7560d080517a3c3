//go:build !darwin

package sandbox

// canonical is p: file systems here are case-sensitive, and the Linux
// sandbox's mounts and Landlock rules work on the files, not on names.
func canonical(p string) string { return p }
