package main

import (
	"io"
	"runtime/debug"
	"testing"
)

// TestProxyGCPercent: `ocfetch proxy` runs the collector at
// proxyGCPercent unless the environment sets GOGC, which wins.
func TestProxyGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		gogc string
		want int
	}{
		{"", proxyGCPercent},
		{"100", 100},
		{"off", 100},
	} {
		debug.SetGCPercent(100)
		a := newApp(nil, io.Discard, io.Discard)
		a.getenv = func(k string) string {
			if k == "GOGC" {
				return tc.gogc
			}
			return ""
		}
		a.tuneProxyGC()
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q: the proxy's GC percent is %d; want %d", tc.gogc, got, tc.want)
		}
	}
}
