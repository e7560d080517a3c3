package testcpu

import (
	"testing"
	"time"
)

// TestNowAdvances: CPU spent by this process shows in Now.
func TestNowAdvances(t *testing.T) {
	start := Now()
	x := 0
	for i := 0; Now()-start <= 0 && i < 1<<30; i++ {
		x += i * i
	}
	if Now() <= start {
		t.Fatalf("Now did not advance after busy work (%d)", x)
	}
}

// TestInterleave: a function that burns more CPU per call is charged
// more, each function is called once per iteration, and the clock's own
// cost is taken out (a call doing nothing costs less than one reading).
func TestInterleave(t *testing.T) {
	burn := func(d time.Duration) func() {
		return func() {
			for start := Now(); Now()-start < d; {
			}
		}
	}
	calls := [3]int{}
	var r Interleaved
	testing.Benchmark(func(b *testing.B) {
		calls = [3]int{}
		r = Interleave(b,
			func() { calls[0]++ },
			func() { calls[1]++; burn(200 * time.Microsecond)() },
			func() { calls[2]++; burn(50 * time.Microsecond)() })
	})
	if calls[0] == 0 || calls[0] != calls[1] || calls[1] != calls[2] {
		t.Fatalf("calls per function %v; want equal and non-zero", calls)
	}
	if r.ClockCost <= 0 {
		t.Errorf("ClockCost %v; want > 0", r.ClockCost)
	}
	if r.PerCall[0] >= r.ClockCost {
		t.Errorf("an empty call charged %v, not less than a clock reading (%v)", r.PerCall[0], r.ClockCost)
	}
	if !(r.PerCall[1] > r.PerCall[2] && r.PerCall[2] > r.PerCall[0]) {
		t.Errorf("per call %v; want the 200 µs burner above the 50 µs one above the empty call", r.PerCall)
	}
}
