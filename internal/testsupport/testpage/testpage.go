// Package testpage holds the page ocfetch's benchmarks serve and convert,
// so that every figure in docs/PERFORMANCE.md is of the same bytes.
package testpage

import "strings"

// tenKB is built once; TenKB hands out the same bytes.
var tenKB = func() []byte {
	var s strings.Builder
	s.WriteString("<!doctype html><html><head><title>Ten KB</title></head><body><main>")
	for s.Len() < 10<<10-200 {
		s.WriteString("<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n")
	}
	s.WriteString("</main></body></html>")
	return []byte(s.String())
}()

// TenKB is the 10 KB HTML page of the loopback benchmarks: paragraphs of
// plain text under a title. Callers share it and must not modify it.
func TenKB() []byte { return tenKB }
