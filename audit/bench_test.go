package audit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
