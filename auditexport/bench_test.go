package auditexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// BenchmarkAppend is one audit line written to the file, without export:
// the cost every call already pays.
func BenchmarkAppend(b *testing.B) { benchAppend(b, false, 0) }

// BenchmarkAppendExported is the same line also exported to a loopback
// collector (which discards the body). cpu-ns/op counts the whole
// process: the Append, the exporter's goroutine (encoding, the POST of
// each batch) and the collector's read, so it is an upper bound of what
// the export adds.
func BenchmarkAppendExported(b *testing.B) { benchAppend(b, true, 0) }

// BenchmarkAppendExported1000PerSecond paces the lines at 1,000 a second,
// the load of the target, so batches fill as they would in use.
func BenchmarkAppendExported1000PerSecond(b *testing.B) { benchAppend(b, true, time.Millisecond) }

// BenchmarkAppend1000PerSecond is its baseline.
func BenchmarkAppend1000PerSecond(b *testing.B) { benchAppend(b, false, time.Millisecond) }

// BenchmarkExport is the export alone, no file: Export of one line to a
// loopback collector that discards the body. cpu-ns/op is the whole
// process's (the caller's Emit, the exporter's goroutine encoding and
// POSTing each batch, the collector's read): the per-line cost of the
// export without the noise of the file write. Lines come faster than
// the collector takes them: run it with -benchtime 4000x or fewer, so
// that every line fits in the default queue (4096) and none is dropped.
func BenchmarkExport(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	x, err := New(&Options{Endpoint: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	e := entry(0)
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		x.Export(e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	x.Shutdown(ctx)
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	if st := x.Stats(); st.Dropped+st.Failed != 0 {
		b.Fatalf("stats %+v: records lost in the benchmark", st)
	}
}

func benchAppend(b *testing.B, export bool, every time.Duration) {
	ws := testws.New(b, testws.Spec{})
	log := audit.Open(ws)
	var x *Exporter
	if export {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
		defer srv.Close()
		var err error
		if x, err = New(&Options{Endpoint: srv.URL}); err != nil {
			b.Fatal(err)
		}
		log = log.WithSink(x)
	}
	e := entry(0)
	var tick *time.Ticker
	if every > 0 {
		tick = time.NewTicker(every)
		defer tick.Stop()
	}
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		if tick != nil {
			<-tick.C
		}
		if err := log.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	if x != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		x.Shutdown(ctx)
		cancel()
		if st := x.Stats(); st.Dropped+st.Failed != 0 {
			b.Fatalf("stats %+v: records lost in the benchmark", st)
		}
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}

// nopProcessor takes every record and does nothing with it.
type nopProcessor struct{}

func (nopProcessor) OnEmit(context.Context, *sdklog.Record) error           { return nil }
func (nopProcessor) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (nopProcessor) Shutdown(context.Context) error                         { return nil }
func (nopProcessor) ForceFlush(context.Context) error                       { return nil }

// BenchmarkExportParts splits an exported line's CPU: "record" builds
// the log API's record of an entry; "emit" adds the SDK logger's Emit
// (its copy of the record) into a processor that does nothing; "batch"
// emits into the batcher, which encodes each record and each batch's
// request, sent nowhere (no HTTP).
func BenchmarkExportParts(b *testing.B) {
	e := entry(0)
	run := func(b *testing.B, f func()) {
		b.ReportAllocs()
		start := testcpu.Now()
		for b.Loop() {
			f()
		}
		b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	}
	b.Run("record", func(b *testing.B) {
		var r otellog.Record
		run(b, func() { r = record(e) })
		_ = r
	})
	b.Run("emit", func(b *testing.B) {
		p := newProvider(nil, nopProcessor{})
		defer p.Shutdown(context.Background())
		l := p.Logger(ScopeName)
		run(b, func() { l.Emit(context.Background(), record(e)) })
	})
	b.Run("batch", func(b *testing.B) {
		bt := newBatcher(&batcher{
			send:       func(context.Context, []byte) (partialSuccess, error) { return partialSuccess{}, nil },
			log:        diag.For(nil, diag.DomainAudit),
			maxRecords: 1 << 14, maxBytes: DefaultQueueBytes, batchSize: DefaultBatchSize,
			interval: DefaultInterval, timeout: DefaultTimeout,
		})
		p := newProvider(nil, bt)
		l := p.Logger(ScopeName)
		run(b, func() { l.Emit(context.Background(), record(e)) })
		p.Shutdown(context.Background())
		if st := bt.dropped.Load() + bt.failed.Load(); st != 0 {
			b.Fatalf("%d records lost", st)
		}
	})
}
