package benchws

import (
	"os"
	"runtime"
	"testing"
)

// TestProcFigures reads this process's own /proc entries: the figures the
// drivers report for their children.
func TestProcFigures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pid := os.Getpid()
	m, err := Status(pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
		if m[k] <= 0 {
			t.Errorf("Status: %s = %d KiB; want > 0", k, m[k])
		}
	}
	hwm, rss, err := Memory(pid)
	if err != nil || rss <= 0 || hwm < rss {
		t.Errorf("Memory = %d, %d, %v; want VmHWM ≥ VmRSS > 0", hwm, rss, err)
	}
	c0, err := CPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the kernel has charged this process at least one more
	// tick (bounded: a test binary that gets no CPU in 10^10 steps has
	// bigger problems).
	x := 0
	for i := 0; i < 1e10; i++ {
		x += i
		if i%1e6 == 0 {
			if c, err := CPU(pid); err != nil || c > c0 {
				break
			}
		}
	}
	if c1, err := CPU(pid); err != nil || c1 <= c0 {
		t.Errorf("CPU after spinning = %v, %v; want more than %v (x %d)", c1, err, c0, x)
	}
	if _, err := CPU(-1); err == nil {
		t.Error("CPU(-1): no error")
	}
}
