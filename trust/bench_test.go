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
// read on every call, nothing cached), with a store of n workspaces.
func BenchmarkTrusted(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s, err := trust.Open(&trust.Options{Dir: b.TempDir()})
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
