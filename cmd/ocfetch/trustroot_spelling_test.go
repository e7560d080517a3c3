package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTrustRootSpelling: on a file system that ignores case (Windows;
// macOS by default) --trust-root in another case than the current
// directory's names the workspace root itself, and is not refused as
// "not the workspace root"; the trust store compares the paths so too.
// Where the volume is case-sensitive (Linux) it is another directory,
// refused as before.
func TestTrustRootSpelling(t *testing.T) {
	root := filepath.Join(newUntrustedRoot(t), "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	upper := filepath.Join(filepath.Dir(root), "PROJ")
	_, err := os.Stat(upper)
	sameDir := err == nil
	if sameDir && runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		t.Skipf("%s: a case-insensitive volume on %s", root, runtime.GOOS)
	}
	var stdout, stderr bytes.Buffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.layers = testLayers(t)
	a.rootDir = root
	a.getenv = func(string) string { return "" }
	err = a.applyTrustRoot("mcp", upper)
	switch {
	case sameDir && err != nil:
		t.Errorf("--trust-root %s for the root %s: %v; want it trusted", upper, root, err)
	case !sameDir && (err == nil || !strings.Contains(err.Error(), "is not the workspace root")):
		t.Errorf("--trust-root %s, another directory than %s: %v; want it refused", upper, root, err)
	}
}

// TestTrustRootAnotherDirectory: where the comparison of names ignores
// case (macOS, Windows) but the volume does not (a case-sensitive APFS
// volume, a Windows directory made case-sensitive), --trust-root PROJ
// beside the workspace root proj names another directory, or none: it is
// refused, not taken for the root. Linux stands in for such a volume with
// the comparison replaced.
func TestTrustRootAnotherDirectory(t *testing.T) {
	defer func(f func(a, b string) bool) { samePath = f }(samePath)
	samePath = strings.EqualFold
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, upper string)
		ok    bool
	}{
		{"another directory", func(t *testing.T, _, upper string) {
			if err := os.Mkdir(upper, 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"no directory", func(*testing.T, string, string) {}, false},
		{"a symlink to the root", func(t *testing.T, root, upper string) {
			if err := os.Symlink(root, upper); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"the root itself", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(newUntrustedRoot(t), "proj")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			named := root
			if tc.setup != nil {
				named = filepath.Join(filepath.Dir(root), "PROJ")
				tc.setup(t, root, named)
			}
			var stdout, stderr bytes.Buffer
			a := newApp(strings.NewReader(""), &stdout, &stderr)
			a.layers = testLayers(t)
			a.rootDir = root
			a.getenv = func(string) string { return "" }
			err := a.applyTrustRoot("mcp", named)
			switch {
			case tc.ok && err != nil:
				t.Errorf("--trust-root %s for the root %s: %v; want it trusted", named, root, err)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), "is not the workspace root")):
				t.Errorf("--trust-root %s for the root %s: %v; want it refused as not the workspace root", named, root, err)
			}
		})
	}
}
