package trust_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/trust"
)

// TestTrustSpellingsWindows: "C:\…\proj", its upper-case spelling and its
// verbatim form "\\?\C:\…\proj" are one directory. Trusting it in one
// spelling and asking in another finds the one entry; revoking in another
// removes it.
func TestTrustSpellingsWindows(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "proj")
	if filepath.VolumeName(root) == "" || strings.HasPrefix(root, `\\`) {
		t.Skipf("%s is not on a drive letter", root)
	}
	verbatim := `\\?\` + root
	if err := s.Trust(ctx, verbatim, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, strings.ToUpper(root), verbatim} {
		if !trusted(t, s, p) {
			t.Errorf("%s is not trusted", p)
		}
	}
	if err := s.Trust(ctx, strings.ToUpper(root), trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("the store lists %d entries for one directory: %+v", len(list), list)
	}
	if removed, err := s.Revoke(ctx, root); err != nil || !removed {
		t.Fatalf("Revoke(%s) = %v, %v", root, removed, err)
	}
	if trusted(t, s, verbatim) || trusted(t, s, root) {
		t.Error("the directory is still trusted after its revocation")
	}
}
