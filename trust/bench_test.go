package trust_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/trust"
)

// BenchmarkTrusted is the per-call cost of the trust check (the store is
// read on every call, nothing cached), with a store of n workspaces: the
// directory's identity and birth time in one statx, or (/marker, where
// the file system has no birth time) a stat and a read of the marker.
func BenchmarkTrusted(b *testing.B) {
	for _, bc := range []struct {
		n      int
		marker bool
	}{{1, false}, {100, false}, {1000, false}, {1, true}} {
		name := fmt.Sprintf("entries=%d", bc.n)
		if bc.marker {
			name += "/marker"
		}
		n := bc.n
		b.Run(name, func(b *testing.B) {
			s, err := trust.Open(&trust.Options{Dir: b.TempDir(), IgnoreBirthTime: bc.marker})
			if err != nil {
				b.Fatal(err)
			}
			base := b.TempDir()
			entries := make([]trust.Entry, 0, n)
			for i := range n - 1 {
				entries = append(entries, trust.Entry{Path: filepath.Join(base, fmt.Sprintf("w%04d", i)), How: "bench"})
			}
			if err := os.WriteFile(s.Path(), trust.Encode(entries), 0o600); err != nil {
				b.Fatal(err)
			}
			root := filepath.Join(base, "zz-root")
			if err := os.Mkdir(root, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := s.Trust(context.Background(), root, trust.Details{How: "bench"}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := s.Trusted(root); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
