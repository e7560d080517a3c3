package benchws

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
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
	// The clock and the ticks are the same time: they differ by the
	// ticks' rounding (a few ticks, and a margin for the time between the
	// two reads).
	clock, err := processClock(pid)
	if err != nil {
		t.Skipf("no process CPU clock here (%v): CPU uses /proc/PID/stat", err)
	}
	ticks, err := statCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	if slack := 5 * clockTick; clock < ticks-slack || clock > ticks+slack {
		t.Errorf("process CPU clock %v, stat %v: more apart than %v", clock, ticks, slack)
	}
	if _, err := processClock(-1); err == nil {
		t.Error("processClock(-1): no error")
	}
}

// TestCPUOfAnotherProcess: the drivers read their children's CPU clock.
func TestCPUOfAnotherProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc and the process CPU clock")
	}
	child := exec.Command("sleep", "10")
	if err := child.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	pid := child.Process.Pid
	// Start returns once the exec succeeded, but the kernel may not yet
	// have charged the child's first slice to its clock: poll, bounded.
	var clock time.Duration
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		var err error
		if clock, err = processClock(pid); err != nil {
			t.Fatalf("processClock(child %d): %v", pid, err)
		}
		if clock > 0 || time.Now().After(deadline) {
			break
		}
	}
	ticks, err := statCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	if clock <= 0 || clock > ticks+5*clockTick {
		t.Errorf("the child's CPU clock %v, its stat %v", clock, ticks)
	}
}

// TestInterleave: every round measures each subject once, the first
// subject rotating; an error stops the rounds; the count is bounded.
func TestInterleave(t *testing.T) {
	var order []int
	done, err := Interleave(3, 3, time.Minute, func(i int) error { order = append(order, i); return nil })
	if err != nil || done != 3 || fmt.Sprint(order) != "[0 1 2 1 2 0 2 0 1]" {
		t.Errorf("Interleave(3, 3) = %d, %v, order %v; want 3 rounds in rotating order", done, err, order)
	}
	boom := errors.New("boom")
	calls := 0
	done, err = Interleave(5, 2, time.Minute, func(int) error {
		calls++
		if calls == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || done != 1 || calls != 3 {
		t.Errorf("an error in round 2: got %d rounds, %v after %d calls; want 1, boom, 3", done, err, calls)
	}
	if done, _ := Interleave(1000, 1, 0, func(int) error { return nil }); done != 0 {
		t.Errorf("a limit already passed: %d rounds; want 0", done)
	}
}
