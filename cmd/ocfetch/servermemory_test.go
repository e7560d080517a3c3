package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestServerMemory: the proxy keeps its heap at GOGC=50 unless the
// environment sets GOGC, which wins.
func TestServerMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		name string
		env  *string
		want int
	}{
		{"GOGC unset", nil, 50},
		{"GOGC set", ptr("80"), 100}, // untouched: the runtime read the variable at start
		{"GOGC set empty", ptr(""), 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env == nil {
				if v, ok := os.LookupEnv("GOGC"); ok {
					t.Cleanup(func() { os.Setenv("GOGC", v) })
					os.Unsetenv("GOGC")
				}
			} else {
				t.Setenv("GOGC", *tc.env)
			}
			debug.SetGCPercent(100)
			serverMemory()
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("GC percent after serverMemory = %d, want %d", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
