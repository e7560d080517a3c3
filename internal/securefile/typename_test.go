package securefile

import (
	"io/fs"
	"testing"
)

// TestTypeName: a refusal names what is on disk. Go reports a Windows
// junction (mount point) or any reparse point but a symlink as
// ModeIrregular, with no other type bit: "mode ?---------" said nothing.
func TestTypeName(t *testing.T) {
	for _, tc := range []struct {
		m       fs.FileMode
		windows bool
		want    string
	}{
		{fs.ModeDir | 0o755, false, "a directory"},
		{fs.ModeNamedPipe, false, "a FIFO"},
		{0o644, false, "a regular file"},
		{fs.ModeIrregular | 0o666, true, "a junction or other reparse point, which ocfetch does not follow"},
		{fs.ModeIrregular | fs.ModeDir | 0o777, true, "a directory"},
		{fs.ModeIrregular, false, "a file of unknown type"},
	} {
		if got := typeName(tc.m, tc.windows); got != tc.want {
			t.Errorf("typeName(%v, windows %v) = %q; want %q", tc.m, tc.windows, got, tc.want)
		}
	}
}
