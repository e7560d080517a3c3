package trust

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// newFoldingStore is a store whose keys compare as on macOS (ignoring
// case and Unicode normalisation), on Linux's case-sensitive file
// system: as on a case-sensitive APFS volume of a Mac, "Proj" and "proj"
// beside it are two directories that samePath takes for one path.
func newFoldingStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(&Options{Dir: filepath.Join(t.TempDir(), "cfg", "ocfetch"), Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	s.same = foldedPathsEqual
	return s
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func trusted(t *testing.T, s *Store, root string) bool {
	t.Helper()
	ok, err := s.Trusted(root)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestTrustKeepsAnotherDirectorysEntry: the looser comparison finds one
// entry for every spelling of a directory, but a directory it matches
// that is another one (a case-sensitive volume's "Proj" beside "proj")
// keeps its own entry: trusting or revoking one leaves the other's.
func TestTrustKeepsAnotherDirectorysEntry(t *testing.T) {
	ctx := context.Background()
	d := t.TempDir()
	upper, lower := filepath.Join(d, "Proj"), filepath.Join(d, "proj")
	mkdirs(t, upper, lower)
	s := newFoldingStore(t)
	if err := s.Trust(ctx, upper, Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Trust(ctx, lower, Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	if !trusted(t, s, upper) || !trusted(t, s, lower) {
		t.Fatalf("after trusting both: %s trusted %v, %s trusted %v; want both", upper, trusted(t, s, upper), lower, trusted(t, s, lower))
	}
	if removed, err := s.Revoke(ctx, lower); err != nil || !removed {
		t.Fatalf("Revoke(%s) = %v, %v", lower, removed, err)
	}
	if trusted(t, s, lower) {
		t.Errorf("%s is still trusted after its revocation", lower)
	}
	if !trusted(t, s, upper) {
		t.Errorf("revoking %s untrusted %s, another directory", lower, upper)
	}
}

// TestTrustAndRevokeEverySpelling: an entry in another spelling of the
// same directory (an older ocfetch's; here a symlink stands in for the
// file system that ignores case) is the directory's one entry: trusting
// it again replaces it, and revoking it in this spelling removes it.
func TestTrustAndRevokeEverySpelling(t *testing.T) {
	ctx := context.Background()
	d := t.TempDir()
	real, alias := filepath.Join(d, "proj"), filepath.Join(d, "PROJ")
	mkdirs(t, real)
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"trust", "revoke"} {
		t.Run(op, func(t *testing.T) {
			s := newFoldingStore(t)
			id, err := identify(real)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.update(ctx, func(e []Entry) ([]Entry, error) {
				return append(e, Entry{Path: alias, ID: id.id, Incarnation: birthPrefix + id.birth, TrustedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), How: "older"}), nil
			}); err != nil {
				t.Fatal(err)
			}
			switch op {
			case "trust":
				if err := s.Trust(ctx, real, Details{How: "test"}); err != nil {
					t.Fatal(err)
				}
			case "revoke":
				if removed, err := s.Revoke(ctx, real); err != nil || !removed {
					t.Fatalf("Revoke = %v, %v; want the other spelling's entry removed", removed, err)
				}
			}
			entries, err := s.List()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{"trust": 1, "revoke": 0}[op]
			if len(entries) != want {
				t.Errorf("after %s in the other spelling: %d entries %+v; want %d", op, len(entries), entries, want)
			}
		})
	}
}

// TestStatusOfAnotherDirectory: the entry of "Proj" is not the entry of
// "proj", another directory beside it that the looser comparison
// matches: "proj" has no entry (not trusted, and not "replaced since it
// was trusted", which it never was), and "Proj" keeps its trust.
func TestStatusOfAnotherDirectory(t *testing.T) {
	d := t.TempDir()
	upper, lower := filepath.Join(d, "Proj"), filepath.Join(d, "proj")
	mkdirs(t, upper, lower)
	s := newFoldingStore(t)
	if err := s.Trust(context.Background(), upper, Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(lower)
	if err != nil {
		t.Fatal(err)
	}
	if st.Found || st.Trusted() {
		t.Errorf("Status(%s) = %+v; want no entry (the entry is %s's)", lower, st, upper)
	}
	if !trusted(t, s, upper) {
		t.Errorf("%s is not trusted", upper)
	}
}
