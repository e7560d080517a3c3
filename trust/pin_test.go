package trust_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestPin: the operator's --trust-root trusts exactly the directory it
// names, for the Store it returns, and writes nothing.
func TestPin(t *testing.T) {
	s := newStore(t)
	base := mkdir(t, t.TempDir())
	root := mkdir(t, base, "work")
	sub := mkdir(t, root, "sub")
	other := mkdir(t, base, "work2") // shares root's prefix
	link := filepath.Join(base, "link")
	if runtime.GOOS != "windows" {
		if err := os.Symlink(root, link); err != nil {
			t.Fatal(err)
		}
	}

	p, err := s.Pin(root+string(filepath.Separator)+".", "--trust-root")
	if err != nil {
		t.Fatalf("Pin(%s/.): %v", root, err)
	}
	if got, how := p.PinnedRoot(); got != root || how != "--trust-root" {
		t.Errorf("PinnedRoot = %q, %q; want %q, --trust-root", got, how, root)
	}
	for _, c := range []struct {
		root string
		want bool
	}{
		{root, true},
		{root + string(filepath.Separator), true},
		{filepath.Join(sub, ".."), true}, // cleaned: the same path
		{sub, false},                     // below
		{base, false},                    // above
		{other, false},                   // a prefix is not the root
		{filepath.Join(base, "missing"), false},
	} {
		if got := trusted(t, p, c.root); got != c.want {
			t.Errorf("pinned store: Trusted(%s) = %v; want %v", c.root, got, c.want)
		}
		if trusted(t, s, c.root) {
			t.Errorf("the store Pin was called on trusts %s", c.root)
		}
	}
	st, err := p.Status(root)
	if err != nil || !st.Trusted() || !st.Pinned || st.Entry.How != "--trust-root" || st.Entry.Path != root {
		t.Errorf("Status(%s) = %+v, %v; want trusted, pinned, how --trust-root", root, st, err)
	}
	if runtime.GOOS != "windows" && trusted(t, p, link) {
		t.Errorf("pinned store trusts %s, a symlink to the pinned root", link)
	}
	if _, err := os.Lstat(s.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Pin wrote the store %s: %v", s.Path(), err)
	}
	if entries, err := p.List(); err != nil || len(entries) != 0 {
		t.Errorf("List after Pin = %v, %v; want no entries", entries, err)
	}

	// Another directory at the path is not the one pinned.
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if trusted(t, p, root) {
		t.Errorf("pinned store trusts %s after it was deleted and made again", root)
	}
}

func TestPinRefuses(t *testing.T) {
	s := newStore(t)
	base := mkdir(t, t.TempDir())
	root := mkdir(t, base, "work")
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"relative": "work",
		"missing":  filepath.Join(base, "missing"),
		"a file":   file,
		"empty":    "",
		"dot-dot":  filepath.Join(root, "..", "missing"),
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(base, "link")
		if err := os.Symlink(root, link); err != nil {
			t.Fatal(err)
		}
		cases["symlink"] = link
		cases["through a symlink"] = filepath.Join(link, ".")
	}
	for name, dir := range cases {
		if p, err := s.Pin(dir, "--trust-root"); err == nil {
			r, _ := p.PinnedRoot()
			t.Errorf("%s: Pin(%q) = %q; want an error", name, dir, r)
		}
	}
}
