package capability

import "sync/atomic"

// normalizations counts [NormalizeHost] calls while a counter is set
// ([CountNormalizations]); nil (always, outside a test) counts nothing.
var normalizations atomic.Pointer[atomic.Int64]

// CountNormalizations starts counting the calls of [NormalizeHost] in this
// process and returns the count so far and a function that stops
// counting. It is for tests and benchmarks that state how many times one
// call path normalises a host (docs/ARCHITECTURE.md's walk-throughs); the
// count is process-wide, so such a test runs alone. Outside one, the cost
// is an atomic load per call.
func CountNormalizations() (count func() int64, stop func()) {
	n := new(atomic.Int64)
	normalizations.Store(n)
	return n.Load, func() { normalizations.CompareAndSwap(n, nil) }
}

func countNormalization() {
	if n := normalizations.Load(); n != nil {
		n.Add(1)
	}
}
