package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestListedName: the name a directory lists for an entry reached by
// another spelling (macOS's default volumes ignore case and Unicode
// normalisation): the exact name when it is listed, else the listed name
// that folds to it and is the same file, else the name as given.
func TestListedName(t *testing.T) {
	names := []string{"Proj", "caf\u00e9", "other", "PROJ2"}
	same := func(want string) func(string) bool { return func(n string) bool { return n == want } }
	for _, tc := range []struct {
		name string
		same func(string) bool
		want string
	}{
		{"Proj", same("Proj"), "Proj"},                 // listed
		{"proj", same("Proj"), "Proj"},                 // another case
		{"PROJ", same("Proj"), "Proj"},                 //
		{"cafe\u0301", same("caf\u00e9"), "caf\u00e9"}, // NFD for the NFC listed
		{"proj", same("nothing"), "proj"},              // folds, but another file (a case-sensitive volume)
		{"proj2", same("PROJ2"), "PROJ2"},              //
		{"missing", same("other"), "missing"},          // folds to nothing listed
	} {
		if got := listedName(names, tc.name, tc.same); got != tc.want {
			t.Errorf("listedName(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestSpelledOnDiskKeepsListedNames: where every name is listed as given
// (any case-sensitive volume), the path is returned as it is, and a name
// that cannot be read back is kept.
func TestSpelledOnDiskKeepsListedNames(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "Proj", "caf\u00e9")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, filepath.Join(p, "missing", "deeper"), "relative/path"} {
		if got := spelledOnDisk(q); got != q {
			t.Errorf("spelledOnDisk(%q) = %q", q, got)
		}
	}
}
