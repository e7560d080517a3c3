//go:build darwin || ios

package trust

// samePath compares real paths as macOS's default file systems (APFS and
// HFS+, case-insensitive) name directories: ignoring case and Unicode
// normalisation ([foldedPathsEqual]).
func samePath(a, b string) bool { return foldedPathsEqual(a, b) }
