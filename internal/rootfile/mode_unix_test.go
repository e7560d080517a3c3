//go:build unix

package rootfile

import (
	"os"
	"testing"
)

// TestWriteAtomicNeverLoosensMode: a file the user made tighter than its
// writer's mode (the user's rules.json chmod 600) keeps that mode when
// ocfetch rewrites it; a looser one is tightened; a new one gets perm.
func TestWriteAtomicNeverLoosensMode(t *testing.T) {
	tests := []struct {
		name     string
		existing os.FileMode // 0: no file
		perm     os.FileMode
		want     os.FileMode
	}{
		{"new file", 0, 0o644, 0o644},
		{"existing 0600, written 0644", 0o600, 0o644, 0o600},
		{"existing 0440, written 0644", 0o440, 0o644, 0o440},
		{"existing 0644, written 0600", 0o644, 0o600, 0o600},
		{"existing 0666, written 0644", 0o666, 0o644, 0o644},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Dir{Path: t.TempDir()}
			path := d.Join("rules.json")
			if tc.existing != 0 {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.WriteAtomic("rules.json", []byte("new"), tc.perm); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("mode of %s = %04o; want %04o", path, got, tc.want)
			}
		})
	}
}
