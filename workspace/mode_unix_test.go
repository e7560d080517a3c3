//go:build unix

package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/workspace"
)

// TestWriteFileAtomicNeverLoosensMode: a file the user made tighter than
// its writer's mode (rules.json chmod 600) keeps that mode when ocfetch
// rewrites it; a looser one is tightened to the writer's; a new file gets
// the writer's.
func TestWriteFileAtomicNeverLoosensMode(t *testing.T) {
	tests := []struct {
		name     string
		existing os.FileMode // 0: no file
		perm     os.FileMode
		want     os.FileMode
	}{
		{"new file", 0, 0o644, 0o644},
		{"existing 0644", 0o644, 0o644, 0o644},
		{"existing 0600, written 0644", 0o600, 0o644, 0o600},
		{"existing 0640, written 0644", 0o640, 0o644, 0o640},
		{"existing 0400, written 0644", 0o400, 0o644, 0o400},
		{"existing 0666, written 0644", 0o666, 0o644, 0o644},
		{"existing 0644, written 0600", 0o644, 0o600, 0o600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), workspace.DirName, workspace.RulesFile)
			if tc.existing != 0 {
				if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := workspace.WriteFileAtomic(path, []byte("new"), tc.perm); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("mode of %s = %04o; want %04o", path, got, tc.want)
			}
			if got, _ := os.ReadFile(path); string(got) != "new" {
				t.Errorf("%s = %q; want %q", path, got, "new")
			}
		})
	}
}
