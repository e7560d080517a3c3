package auditexport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	otellog "go.opentelemetry.io/otel/log"
	collogsv1 "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/proto"

	"github.com/ocfetch/ocfetch/diag"
)

// silentCollector accepts requests and never answers until release is
// called; release returns once every request handler has ended.
func silentCollector(t *testing.T) (url string, release func()) {
	t.Helper()
	hold := make(chan struct{})
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(hold)
			srv.Close()
			wg.Wait()
		})
	}
	t.Cleanup(release)
	return srv.URL, release
}

// exportAll exports n entries from another goroutine and fails the test
// if they have not all returned within a generous bound: Export must not
// wait for the collector.
func exportAll(t *testing.T, x *Exporter, n int) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			x.Export(entry(i))
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Export blocked on a collector that never answers")
	}
}

// TestCollectorNeverAnswersCallsNeverBlock: with a collector that takes
// requests and never answers, Export returns at once; exactly QueueSize
// records are held (queued or in the request in flight) and every other
// one is dropped and counted; Shutdown, its context ending, cuts the
// request short and counts every record once.
func TestCollectorNeverAnswersCallsNeverBlock(t *testing.T) {
	url, release := silentCollector(t)
	x, err := New(&Options{Endpoint: url, QueueSize: 8, BatchSize: 4, Interval: 5 * time.Millisecond, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	exportAll(t, x, n)
	if st := x.Stats(); st != (Stats{Dropped: n - 8}) {
		t.Errorf("stats = %+v before Shutdown; want exactly %d dropped (queue of 8, nothing settles)", st, n-8)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := x.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown = %v; want the context's deadline", err)
	}
	st := x.Stats()
	if st.Exported != 0 || st.Dropped+st.Failed != n || st.Dropped < n-8 {
		t.Errorf("stats = %+v after Shutdown; want all %d dropped or failed, %d or more dropped", st, n, n-8)
	}
	release()
}

// TestQueueBytesBound: the queue is bounded in bytes too; a record that
// would pass QueueBytes is dropped and counted, exactly.
func TestQueueBytesBound(t *testing.T) {
	rec := sdkRecords(t, entry(0))
	size := len(appendRecord(nil, &rec[0]))
	url, release := silentCollector(t)
	x, err := New(&Options{Endpoint: url, QueueBytes: 3*size + size/2, BatchSize: 2, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	exportAll(t, x, 20)
	if st := x.Stats(); st != (Stats{Dropped: 17}) {
		t.Errorf("stats = %+v; want 17 dropped (room for 3 records of %d bytes)", st, size)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	x.Shutdown(ctx)
	if st := x.Stats(); st.Exported != 0 || st.Dropped+st.Failed != 20 {
		t.Errorf("stats = %+v after Shutdown; want all 20 dropped or failed", st)
	}
	release()
}

// TestFlushSendsWhatIsQueued: a batch neither full nor due is sent by
// ForceFlush (through the LoggerProvider) and by Shutdown, each as one
// request.
func TestFlushSendsWhatIsQueued(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	x, err := New(&Options{Endpoint: srv.URL, BatchSize: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 7 {
		x.Export(entry(i))
	}
	if err := x.provider.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.got()); n != 7 || x.Stats() != (Stats{Exported: 7}) {
		t.Errorf("after ForceFlush: %d records arrived, stats %+v; want 7 exported", n, x.Stats())
	}
	for i := range 5 {
		x.Export(entry(i))
	}
	if err := x.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	requests := rcv.requests
	rcv.mu.Unlock()
	if n := len(rcv.got()); n != 12 || requests != 2 || x.Stats() != (Stats{Exported: 12}) {
		t.Errorf("after Shutdown: %d records in %d requests, stats %+v; want 12 exported in 2", n, requests, x.Stats())
	}
}

// TestBatchOneScopeEach: records of two scopes emitted in turn are sent
// as runs of one scope, each request one ResourceLogs the official types
// decode, with every record in the order emitted.
func TestBatchOneScopeEach(t *testing.T) {
	var mu sync.Mutex
	var got []string
	b := newBatcher(&batcher{
		send: func(_ context.Context, body []byte) (partialSuccess, error) {
			var req collogsv1.ExportLogsServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				t.Errorf("the official types cannot decode the request: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(req.ResourceLogs) != 1 || len(req.ResourceLogs[0].ScopeLogs) != 1 {
				t.Errorf("request = %v; want one resource, one scope", &req)
				return partialSuccess{}, nil
			}
			sl := req.ResourceLogs[0].ScopeLogs[0]
			for _, r := range sl.LogRecords {
				got = append(got, sl.Scope.GetName()+" "+r.Body.GetStringValue())
			}
			return partialSuccess{}, nil
		},
		log: diag.For(nil, diag.DomainAudit), maxRecords: 100, maxBytes: DefaultQueueBytes, batchSize: 3,
		interval: time.Hour, timeout: time.Second,
	})
	p := newProvider(nil, b)
	loggers := []otellog.Logger{p.Logger("a"), p.Logger("b")}
	var want []string
	for i, scope := range []int{0, 0, 1, 0, 1, 1, 1, 1, 0} {
		r := record(entry(i))
		loggers[scope].Emit(context.Background(), r)
		want = append(want, string(rune('a'+scope))+" "+r.Body().AsString())
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("got %d records; want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %q; want %q", i, got[i], want[i])
		}
	}
	if b.exported.Load() != int64(len(want)) || b.dropped.Load()+b.failed.Load() != 0 {
		t.Errorf("exported %d, dropped %d, failed %d; want %d exported", b.exported.Load(), b.dropped.Load(), b.failed.Load(), len(want))
	}
}
