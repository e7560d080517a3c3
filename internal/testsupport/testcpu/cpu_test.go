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

// TestInterleave: each function is called once per iteration, each
// follows each other one, a function that burns more CPU per call is
// charged more and about what it burns, and the clock's own cost is taken
// out (a call doing nothing costs less than one reading).
func TestInterleave(t *testing.T) {
	burn := func(d time.Duration) {
		for start := Now(); Now()-start < d; {
		}
	}
	var order []int
	note := func(i int) {
		if len(order) < 60 {
			order = append(order, i)
		}
	}
	var r Interleaved
	var calls [3]int
	testing.Benchmark(func(b *testing.B) {
		order, calls = nil, [3]int{}
		r = Interleave(b,
			func() { calls[0]++; note(0) },
			func() { calls[1]++; note(1); burn(200 * time.Microsecond) },
			func() { calls[2]++; note(2); burn(50 * time.Microsecond) })
	})
	if calls[0] == 0 || calls[0] != calls[1] || calls[1] != calls[2] {
		t.Fatalf("calls per function %v; want equal and non-zero", calls)
	}
	if len(order) < 18 {
		t.Fatalf("only %d calls recorded", len(order))
	}
	follows := map[[2]int]bool{}
	for i := 1; i < 18; i++ {
		follows[[2]int{order[i-1], order[i]}] = true
	}
	for a := range 3 {
		for b := range 3 {
			if a != b && !follows[[2]int{a, b}] {
				t.Errorf("function %d never followed %d in the first 18 calls: %v", b, a, order[:18])
			}
		}
	}
	if r.ClockCost <= 0 {
		t.Errorf("ClockCost %v; want > 0", r.ClockCost)
	}
	if r.PerCall[0] >= r.ClockCost {
		t.Errorf("an empty call charged %v, not less than a clock reading (%v)", r.PerCall[0], r.ClockCost)
	}
	if got := r.PerCall[1]; got < 190*time.Microsecond || got > 300*time.Microsecond {
		t.Errorf("the 200 µs burner charged %v per call; want 190–300 µs", got)
	}
	if !(r.PerCall[1] > r.PerCall[2] && r.PerCall[2] > r.PerCall[0]) {
		t.Errorf("per call %v; want the 200 µs burner above the 50 µs one above the empty call", r.PerCall)
	}
}
