package trust

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A workspace's key is its real path as filepath.EvalSymlinks spells it,
// and EvalSymlinks keeps the spelling it was given wherever the file
// system accepts it: on macOS, whose default volumes (APFS, HFS+) ignore
// case and Unicode normalisation, "/Users/me/Proj", "/Users/me/proj" and
// an NFD "é" for an NFC one all reach one directory; on Windows,
// "C:\proj" and its verbatim form "\\?\C:\proj" do (EvalSymlinks there
// already gives each name's on-disk case and long name, not the 8.3 one).
// samePath (one per platform) says when two keys name one directory, so
// that a directory gets one entry, whichever spelling trusted it, and a
// revocation in any spelling removes it. A different directory that a
// looser comparison matches (a case-sensitive volume's "Proj" beside
// "proj") neither gains nor loses anything: an entry in another spelling
// counts only where that spelling reaches the same directory
// (sameDirectory), and its identity is checked as any entry's.

// SamePath reports whether two real paths name one directory as this
// platform's file systems compare names (samePath): byte for byte on
// Linux and the BSDs, ignoring case and Unicode normalisation on macOS,
// ignoring case and a \\?\ prefix on Windows. A front end that compares
// a root the user named with the workspace's uses it, as the store does.
func SamePath(a, b string) bool { return samePath(a, b) }

// foldedPathsEqual reports whether a and b are the same path on a file
// system that ignores case and Unicode normalisation (macOS's default):
// equal once both are in NFC and compared under Unicode case folding.
func foldedPathsEqual(a, b string) bool {
	if a == b {
		return true
	}
	return strings.EqualFold(norm.NFC.String(a), norm.NFC.String(b))
}

// windowsPathsEqual reports whether a and b are the same path as Windows
// file systems compare them: ignoring case, and a verbatim prefix
// ("\\?\C:\p" is "C:\p", "\\?\UNC\host\share\p" is "\\host\share\p").
func windowsPathsEqual(a, b string) bool {
	return strings.EqualFold(stripVerbatim(a), stripVerbatim(b))
}

// stripVerbatim drops the \\?\ (or \??\) prefix from a drive-letter or UNC
// path; any other path is returned as it is.
func stripVerbatim(p string) string {
	for _, prefix := range []string{`\\?\`, `\??\`} {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if unc, ok := cutPrefixFold(rest, `UNC\`); ok {
			return `\\` + unc
		}
		if len(rest) >= 2 && rest[1] == ':' && ('a' <= rest[0]|0x20 && rest[0]|0x20 <= 'z') {
			return rest
		}
	}
	return p
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
