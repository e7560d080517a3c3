package trust_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/trust"
)

// TestStatusSeesRootChangedBetweenCalls: a trusted root checked on one
// call, then replaced — deleted and made again, moved away and another
// directory moved in, turned into a symlink to itself moved, an ancestor
// renamed and made again — is not trusted on the next call; an unchanged
// root is trusted with no identity check where change notification works
// (one statx and the resolution of the path elsewhere). Nothing sleeps.
func TestStatusSeesRootChangedBetweenCalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, base, root string)
	}{
		{"deleted and made again", func(t *testing.T, _, root string) {
			must(t, os.RemoveAll(root))
			must(t, os.Mkdir(root, 0o755))
		}},
		{"another directory moved in", func(t *testing.T, base, root string) {
			other := filepath.Join(base, "other")
			must(t, os.Mkdir(other, 0o755))
			must(t, os.Rename(root, root+".old"))
			must(t, os.Rename(other, root))
		}},
		{"turned into a symlink to itself moved", func(t *testing.T, _, root string) {
			must(t, os.Rename(root, root+".old"))
			must(t, os.Symlink(root+".old", root))
		}},
		{"an ancestor renamed and made again", func(t *testing.T, base, root string) {
			top := filepath.Join(base, "top")
			must(t, os.Rename(top, top+".old"))
			must(t, os.MkdirAll(root, 0o755))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "top", "ws")
			must(t, os.MkdirAll(root, 0o755))
			s := newModeStore(t, false)
			if err := s.Trust(context.Background(), root, trust.Details{How: "test"}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if st := status(t, s, root); !st.Trusted() {
					t.Fatalf("before the change: %+v; want trusted", st)
				}
			}
			before := securefile.Checks()
			if st := status(t, s, root); !st.Trusted() {
				t.Fatalf("before the change: %+v; want trusted", st)
			}
			if n := securefile.Checks() - before; notified(t) && n != 0 {
				t.Errorf("an unchanged root cost %d checks; want 0", n)
			}
			tc.change(t, base, root)
			if st := status(t, s, root); st.Trusted() {
				t.Errorf("after the change: %+v; want untrusted", st)
			}
		})
	}
}

// notified reports whether change notification covers the test's
// temporary directories.
func notified(t *testing.T) bool {
	t.Helper()
	return securefile.Watch(nil, t.TempDir(), true).ValidIn(nil)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
