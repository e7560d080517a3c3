package audit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/securefile"
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
