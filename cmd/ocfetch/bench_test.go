package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// benchGet runs `ocfetch get` in-process b.N times: the whole CLI path,
// flag parsing, workspace and profile resolution, rules, local allowlist,
// the request over loopback, conversion, the audit line and output.
func benchGet(b *testing.B, wantCode int, args ...string) {
	b.ReportAllocs()
	for b.Loop() {
		a := newApp(strings.NewReader(""), io.Discard, io.Discard)
		a.interactive = func() bool { return false }
		a.progress = func() bool { return false }
		a.layers = testLayers(b)
		if code := execute(context.Background(), a, args); code != wantCode {
			b.Fatalf("exit %d; want %d", code, wantCode)
		}
	}
}

// BenchmarkGetLocal is one delivered fetch in local mode, covered by a
// saved rule.
func BenchmarkGetLocal(b *testing.B) {
	s := startSite()
	defer s.Close()
	root := newUntrustedRoot(b)
	trustRoot(b, root)
	localRoot2(b, root, s.port, true)
	benchGet(b, exitOK, "--root", root, "--profile", "permissive", "get", s.url("/"))
}

// BenchmarkGetRefused is one call refused before any packet is sent
// (not_approved): the cost of the policy path and its audit line.
func BenchmarkGetRefused(b *testing.B) {
	root := b.TempDir()
	benchGet(b, exitRefused, "--root", root, "get", "https://example.com/")
}
