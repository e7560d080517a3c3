package fetch

import (
	"net/http/httptest"
	"runtime/metrics"
	"syscall"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
)

func BenchmarkZZSched(t *testing.B) {


	srv := httptest.NewServer(hostile.Page("text/html; charset=utf-8", tenKB))
	defer srv.Close()
	port := serverPort(t, srv)
	plain, d1 := plainGet(t, srv.URL+"/page")
	defer d1()
	full, d2 := fullPath(t, srv.URL, port, "raw", true)
	defer d2()
	un, d3 := fullPath(t, srv.URL, port, "raw", false)
	defer d3()
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}, {Name: "/gc/cycles/total:gc-cycles"}}
	for _, c := range []struct{ n string; f func() }{{"plain", plain}, {"full", full}, {"unaudited", un}, {"plain", plain}} {
		for range 200 { c.f() }
		metrics.Read(s)
		g0, gc0 := s[0].Value.Uint64(), s[1].Value.Uint64()
		var r0, r1 syscall.Rusage
		syscall.Getrusage(0, &r0)
		const n = 3000
		for range n { c.f() }
		syscall.Getrusage(0, &r1)
		metrics.Read(s)
		t.Logf("%-10s goroutines/call %.2f gc/1k %.2f nvcsw/call %.2f nivcsw/call %.2f", c.n, float64(s[0].Value.Uint64()-g0)/n, float64(s[1].Value.Uint64()-gc0)*1000/n, float64(r1.Nvcsw-r0.Nvcsw)/n, float64(r1.Nivcsw-r0.Nivcsw)/n)
	}
}
