package testcpu

import (
	"testing"
	"time"
)

// Interleaved is what [Interleave] measured: each function's process CPU
// time per call.
type Interleaved struct {
	// PerCall is each function's CPU time per call, in the order given,
	// the cost of reading the clock taken out.
	PerCall []time.Duration
	// ClockCost is what one reading of the clock cost, taken out of
	// every call's figure.
	ClockCost time.Duration
}

// Interleave runs the benchmark's loop with every fn called once per
// iteration, in an order that rotates and turns: in iteration k, fn
// k mod n comes first, followed by the next ones in a cycle of n
// iterations and by the previous ones in the cycle after, so that each
// fn follows its neighbours on both sides alike. It charges each call
// the process CPU time ([Now]) between the clock readings around it. Interleaving call by call makes the
// ratios of the figures steadier than separate benchmarks: a shared
// host's drift over seconds falls on every function alike. Work another
// goroutine does for a call (a server's, a transport's) counts to the
// call as long as it is done before the call returns.
func Interleave(b *testing.B, fns ...func()) Interleaved {
	b.Helper()
	if len(fns) == 0 {
		b.Fatal("testcpu.Interleave: no function to measure")
	}
	r := Interleaved{PerCall: make([]time.Duration, len(fns)), ClockCost: clockCost()}
	sums := make([]time.Duration, len(fns))
	n, calls := len(fns), 0
	for b.Loop() {
		first, step := calls%n, 1
		if calls/n%2 == 1 {
			step = n - 1 // the previous one, mod n
		}
		for k := range n {
			i := (first + k*step) % n
			start := Now()
			fns[i]()
			sums[i] += Now() - start
		}
		calls++
	}
	for i, s := range sums {
		r.PerCall[i] = max(s/time.Duration(calls)-r.ClockCost, 0)
	}
	return r
}

// clockCost is the CPU time one call of [Now] takes, the mean of a run
// of readings back to back.
func clockCost() time.Duration {
	const n = 2000
	start := Now()
	var last time.Duration
	for range n {
		last = Now()
	}
	return (last - start) / n
}

// Report reports r to b: "<name>-cpu-ns/op" for every function, named in
// Interleave's order, and "<name>/<first name>" for every other one, its
// CPU per call over the first function's.
func (r Interleaved) Report(b *testing.B, names ...string) {
	b.Helper()
	if len(names) != len(r.PerCall) {
		b.Fatalf("testcpu: %d names for %d functions", len(names), len(r.PerCall))
	}
	for i, name := range names {
		b.ReportMetric(float64(r.PerCall[i]), name+"-cpu-ns/op")
		if i > 0 && r.PerCall[0] > 0 {
			b.ReportMetric(float64(r.PerCall[i])/float64(r.PerCall[0]), name+"/"+names[0])
		}
	}
}

// Loop runs the benchmark's loop with one call of fn per iteration and
// reports its allocations and the process CPU time per call
// ("cpu-ns/op").
func Loop(b *testing.B, fn func()) {
	b.Helper()
	b.ReportAllocs()
	start := Now()
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64(Now()-start)/float64(b.N), "cpu-ns/op")
}
