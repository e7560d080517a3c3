// Package testcpu reads the process's CPU time for benchmarks, which
// report cpu-ns/op beside ns/op: on a loaded shared machine the wall clock
// says more about the neighbours than about the code.
//
//	start := testcpu.Now()
//	for b.Loop() { … }
//	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
package testcpu
