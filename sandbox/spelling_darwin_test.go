package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealPathSpelling: on a volume that ignores case (macOS's default),
// a path typed in another case reaches the directory, and
// filepath.EvalSymlinks keeps the spelling typed; Seatbelt matches a
// profile's paths against the kernel's spelling, so realPath must give
// the directory's own. Needs a case-insensitive volume: macOS only.
func TestRealPathSpelling(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "Proj", "sub")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	typed := filepath.Join(strings.ToUpper(dir), "pROJ", "SUB")
	if _, err := os.Stat(typed); err != nil {
		t.Skipf("%s: this volume is case-sensitive", dir)
	}
	if got, ok := realPath(typed); !ok || got != want {
		t.Errorf("realPath(%s) = %q, %v; want %q", typed, got, ok, want)
	}
	missing := filepath.Join(typed, "new")
	if got, ok := realPath(missing); ok || got != filepath.Join(want, "new") {
		t.Errorf("realPath(%s) = %q, %v; want %q, false", missing, got, ok, filepath.Join(want, "new"))
	}
}
