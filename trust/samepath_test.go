package trust

import "testing"

// TestFoldedPathsEqual: macOS's default volumes ignore case and Unicode
// normalisation, so one directory has many spellings; samePath there must
// see them as one key.
func TestFoldedPathsEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"/Users/me/proj", "/Users/me/proj", true},
		{"/Users/me/Proj", "/Users/me/proj", true},
		{"/USERS/ME/PROJ", "/Users/me/proj", true},
		{"/Users/me/caf\u00e9", "/Users/me/cafe\u0301", true}, // NFC and NFD
		{"/Users/me/CAF\u00c9", "/Users/me/cafe\u0301", true},
		{"/Users/me/proj", "/Users/me/proj2", false},
		{"/Users/me/proj", "/Users/me/pro", false},
		{"/Users/me/cafe", "/Users/me/caf\u00e9", false},
	} {
		if got := foldedPathsEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("foldedPathsEqual(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestWindowsPathsEqual: Windows compares names ignoring case, and a
// verbatim path (\\?\C:\p, \\?\UNC\host\share\p) names what its plain
// form names.
func TestWindowsPathsEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`C:\Users\me\proj`, `C:\Users\me\proj`, true},
		{`C:\Users\me\Proj`, `c:\users\ME\proj`, true},
		{`\\?\C:\Users\me\proj`, `C:\Users\me\proj`, true},
		{`\??\C:\Users\me\proj`, `c:\users\me\proj`, true},
		{`\\?\UNC\host\share\proj`, `\\host\share\proj`, true},
		{`\\?\unc\HOST\share\proj`, `\\host\SHARE\proj`, true},
		{`\\host\share\proj`, `\\host\share\proj2`, false},
		{`\\?\C:\Users\me\proj`, `D:\Users\me\proj`, false},
		{`\\?\Volume{0b1c}\proj`, `C:\proj`, false},
		{`\\?\C:\proj`, `\\?\C:\proj`, true},
	} {
		if got := windowsPathsEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("windowsPathsEqual(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestEntryFor: an entry spelled as the key wins over another spelling
// of it, whatever their order (a store an older ocfetch wrote can hold
// both); another spelling is found when it is the only one.
func TestEntryFor(t *testing.T) {
	entries := []Entry{{Path: "/Users/me/Proj", How: "older"}, {Path: "/Users/me/proj", How: "exact"}}
	if e, ok := entryFor(entries, "/Users/me/proj", foldedPathsEqual); !ok || e.How != "exact" {
		t.Errorf("entryFor = %+v, %v; want the entry spelled as the key", e, ok)
	}
	if e, ok := entryFor(entries[:1], "/Users/me/proj", foldedPathsEqual); !ok || e.How != "older" {
		t.Errorf("entryFor = %+v, %v; want the other spelling's entry", e, ok)
	}
	if _, ok := entryFor(entries[:1], "/Users/me/proj", func(a, b string) bool { return a == b }); ok {
		t.Error("entryFor found another spelling where paths compare byte for byte")
	}
}
