package trust_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/trust"
)

// TestTrustSpellingsDarwin: on a volume that ignores case (macOS's
// default), "proj" and "PROJ" are one directory; filepath.EvalSymlinks
// keeps either spelling. Trusting it in one and asking in the other
// finds the one entry; trusting again in the other replaces it; revoking
// in either removes it (no entry left trusting the directory).
func TestTrustSpellingsDarwin(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "proj")
	upper := filepath.Join(filepath.Dir(root), "PROJ")
	if _, err := os.Stat(upper); err != nil {
		t.Skipf("%s: this volume is case-sensitive", filepath.Dir(root))
	}
	if err := s.Trust(ctx, root, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	if !trusted(t, s, upper) {
		t.Errorf("%s is not trusted; %s (the same directory) is", upper, root)
	}
	if err := s.Trust(ctx, upper, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("the store lists %d entries for one directory: %+v", len(list), list)
	}
	if removed, err := s.Revoke(ctx, strings.ToLower(upper)); err != nil || !removed {
		t.Fatalf("Revoke(%s) = %v, %v", strings.ToLower(upper), removed, err)
	}
	if trusted(t, s, upper) || trusted(t, s, root) {
		t.Error("the directory is still trusted after its revocation")
	}
}
