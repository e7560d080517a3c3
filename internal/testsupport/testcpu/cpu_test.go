package testcpu

import "testing"

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
