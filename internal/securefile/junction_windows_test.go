package securefile_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// TestJunctionRefused: a directory junction (mklink /J, which needs no
// privilege, unlike a symlink) where .oc_chat belongs is never followed:
// Go reports it as ModeIrregular (ModeSymlink before Go 1.23's
// winsymlink), and the refusal names it as a junction.
// Junctions exist only on Windows, so this runs only there.
func TestJunctionRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "rules.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".oc_chat")
	if out, err := exec.Command("cmd", "/c", "mklink", "/J", link, target).CombinedOutput(); err != nil {
		t.Skipf("mklink /J: %v: %s", err, out)
	}
	_, err := securefile.ReadFile(filepath.Join(link, "rules.json"), 1<<10)
	if !errors.Is(err, securefile.ErrNotDir) || !strings.Contains(err.Error(), "junction") && !errors.Is(err, securefile.ErrSymlink) {
		t.Errorf("ReadFile through a junction = %v; want ErrNotDir naming the junction (or a symlink)", err)
	}
	if err := securefile.WriteFile(filepath.Join(link, "rules.json"), []byte("{}"), 0o644); !errors.Is(err, securefile.ErrNotDir) {
		t.Errorf("WriteFile through a junction = %v; want ErrNotDir", err)
	}
}
