package audit_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
)

func BenchmarkAppend(b *testing.B) {
	log := audit.Open(newWS(b))
	e := entry("b", 0)
	b.ReportAllocs()
	before := securefile.Checks()
	for b.Loop() {
		if err := log.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(securefile.Checks()-before)/float64(b.N), "checks/op")
}

// BenchmarkReadTail20 reads the last 20 lines of a 100,000-line (about
// 30 MB) log: the cost must not depend on the log's size.
func BenchmarkReadTail20(b *testing.B) {
	ws := newWS(b)
	tmpl := line(b, entry("B", 0))
	var sb strings.Builder
	for i := range 100000 {
		sb.WriteString(strings.Replace(tmpl, `"B-0"`, fmt.Sprintf(`"B-%d"`, i), 1))
		sb.WriteByte('\n')
	}
	writeLog(b, ws, []string{strings.TrimSuffix(sb.String(), "\n")}, false)
	b.ReportAllocs()
	for b.Loop() {
		got, err := audit.Read(ws, 20)
		if err != nil || len(got) != 20 {
			b.Fatalf("Read = %d entries, %v", len(got), err)
		}
	}
}

// BenchmarkPreflightAppend is the audit path of one call: the preflight
// within the call, then the line appended (the write(2), and the poll
// that sees a change made during the call), with the log unchanged
// between calls, as a broker's or the proxy's calls find it.
func BenchmarkPreflightAppend(b *testing.B) {
	log := audit.Open(newWS(b))
	e := entry("b", 0)
	if err := log.Append(e); err != nil { // the log created, its descriptor kept
		b.Fatal(err)
	}
	b.ReportAllocs()
	start, before := testcpu.Now(), securefile.Checks()
	for b.Loop() {
		ctx := securefile.WithCall(context.Background(), securefile.NewCall())
		if err := log.PreflightContext(ctx); err != nil {
			b.Fatal(err)
		}
		if err := log.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(securefile.Checks()-before)/float64(b.N), "checks/op")
}

// BenchmarkReadWholeHostileLog is the worst case of a whole-log read (the
// default of ocfetch audit, and ocfetch run --report): an audit.jsonl a
// repository shipped, 8 MiB of lines that are not entries. The read holds
// one line at a time: peak-heap-MiB is the most the heap's objects took
// while it ran (sampled every millisecond), garbage included.
func BenchmarkReadWholeHostileLog(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"blank", ""},
		{"garbage", "garbage"},
		{"bad-time", `{"time":"s3cret"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ws := newWS(b)
			n := (8 << 20) / (len(tc.line) + 1)
			writeLog(b, ws, []string{strings.Repeat(tc.line+"\n", n-1) + tc.line}, false)
			runtime.GC()
			peak := sampleHeap()
			b.ReportAllocs()
			for b.Loop() {
				got, err := audit.Read(ws, 0)
				if len(got) != 0 || !errors.Is(err, audit.ErrMalformedLine) || !strings.Contains(err.Error(), fmt.Sprintf("%d more malformed lines", n-20)) {
					b.Fatalf("Read = %d entries, %v", len(got), err)
				}
			}
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
		})
	}
}

// sampleHeap samples the bytes of heap objects every millisecond until
// the returned function is called, which returns the largest sample.
func sampleHeap() (stop func() uint64) {
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-result }
}
