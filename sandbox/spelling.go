package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// spelledOnDisk returns p, an absolute real path (filepath.EvalSymlinks's),
// with every name spelled as its directory lists it. On macOS's default
// volumes (APFS, HFS+), which ignore case and Unicode normalisation,
// EvalSymlinks keeps the spelling it was given ("/Users/me/PROJ" for
// "/Users/me/Proj"), while Seatbelt matches a profile's (subpath …)
// against the kernel's spelling of the file: a workspace, a --deny-read
// or --allow-write path typed in another case would silently not match.
// A name that cannot be read back is kept as given.
func spelledOnDisk(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	cur := string(filepath.Separator)
	for _, name := range strings.Split(p, string(filepath.Separator)) {
		if name == "" {
			continue
		}
		if names, err := readNames(cur); err == nil {
			if want, err := os.Lstat(filepath.Join(cur, name)); err == nil {
				dir := cur
				name = listedName(names, name, func(n string) bool {
					fi, err := os.Lstat(filepath.Join(dir, n))
					return err == nil && os.SameFile(fi, want)
				})
			}
		}
		cur = filepath.Join(cur, name)
	}
	return cur
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// listedName returns name as names (a directory's listing) spell it: name
// itself when listed, else the listed name equal to it ignoring case and
// Unicode normalisation for which same (is it the file name reaches?)
// holds, else name.
func listedName(names []string, name string, same func(listed string) bool) string {
	if slices.Contains(names, name) {
		return name
	}
	folded := norm.NFC.String(name)
	for _, n := range names {
		if strings.EqualFold(norm.NFC.String(n), folded) && same(n) {
			return n
		}
	}
	return name
}
