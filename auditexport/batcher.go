package auditexport

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/ocfetch/ocfetch/diag"
)

// maxRequest is the size past which a batch is closed and sent: a
// request stays near 1 MiB however large its records are.
const maxRequest = 1 << 20

// batcher is the exporter's sdklog.Processor (the SDK's extension point
// for what happens to an emitted record), in place of the SDK's
// BatchProcessor: OnEmit encodes the record (appendRecord) straight into
// the open batch, so a record is neither cloned nor queued as a struct,
// and one goroutine sends each batch as one request (sender.post). It
// keeps the BatchProcessor's contract and the issue's:
//
//   - bounded: at most maxRecords records and maxBytes of encoded records
//     are unsettled (queued or in a request not yet answered); past
//     either bound a record is dropped and counted, never an older one;
//   - batched: a batch is sent when it holds batchSize records or
//     maxRequest bytes, or after interval;
//   - never blocking: OnEmit holds mu for the encoding only, the
//     goroutine holds it for no I/O;
//   - ForceFlush and Shutdown send what is queued, within their context;
//     what Shutdown could not send is counted as dropped.
//
// Every record is counted once: exported, failed (by the request's
// answer, see settle) or dropped.
type batcher struct {
	send       func(ctx context.Context, body []byte) (partialSuccess, error)
	log        *slog.Logger
	maxRecords int
	maxBytes   int
	batchSize  int
	interval   time.Duration
	timeout    time.Duration

	mu      sync.Mutex
	stopped bool
	open    *batch   // filling; nil when none
	full    []*batch // closed, oldest first, waiting for the goroutine
	free    []*batch // sent, their buffers kept for reuse
	// sized is the capacity of the last batch closed: a new buffer
	// starts there rather than growing to it again.
	sized int
	// records and bytes unsettled: in open, full and the request in
	// flight.
	records, bytes int

	kick     chan struct{}      // a batch was closed (buffered, 1)
	flushes  chan chan struct{} // ForceFlush's requests
	quit     chan struct{}      // closed by Shutdown
	done     chan struct{}      // closed when the goroutine has ended
	cancel   context.CancelFunc // cuts the goroutine's requests short
	shutOnce sync.Once

	exported, dropped, failed atomic.Int64
}

// batch is a run of records of one resource and instrumentation scope,
// encoded as the LogRecord fields of one ScopeLogs.
type batch struct {
	res   *resource.Resource
	scope instrumentation.Scope
	n     int
	enc   []byte
}

var _ sdklog.Processor = (*batcher)(nil)

// newBatcher starts a batcher's goroutine; stop it with Shutdown.
func newBatcher(b *batcher) *batcher {
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.kick = make(chan struct{}, 1)
	b.flushes = make(chan chan struct{})
	b.quit = make(chan struct{})
	b.done = make(chan struct{})
	go b.run(ctx)
	return b
}

// Enabled is true: every record is taken (or counted as dropped).
func (b *batcher) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }

// OnEmit encodes r into the open batch, or drops and counts it when the
// bounds are reached or the batcher is shut down. It never fails.
func (b *batcher) OnEmit(_ context.Context, r *sdklog.Record) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || b.records >= b.maxRecords {
		b.dropped.Add(1)
		return nil
	}
	bt := b.open
	if bt == nil || bt.res != r.Resource() || bt.scope != r.InstrumentationScope() {
		b.closeOpen()
		bt = b.newBatch(r.Resource(), r.InstrumentationScope())
	}
	start := len(bt.enc)
	bt.enc = appendRecord(bt.enc, r)
	size := len(bt.enc) - start
	if b.bytes+size > b.maxBytes {
		bt.enc = bt.enc[:start]
		b.dropped.Add(1)
		return nil
	}
	bt.n++
	b.records++
	b.bytes += size
	if bt.n >= b.batchSize || len(bt.enc) >= maxRequest {
		b.closeOpen()
	}
	return nil
}

// newBatch opens a batch, reusing a sent one's buffer. mu is held.
func (b *batcher) newBatch(res *resource.Resource, scope instrumentation.Scope) *batch {
	var bt *batch
	if n := len(b.free); n > 0 {
		bt, b.free = b.free[n-1], b.free[:n-1]
		bt.enc = bt.enc[:0]
	} else {
		bt = &batch{enc: make([]byte, 0, b.sized)}
	}
	bt.res, bt.scope, bt.n = res, scope, 0
	b.open = bt
	return bt
}

// closeOpen queues the open batch, if it holds a record, for the
// goroutine. mu is held.
func (b *batcher) closeOpen() {
	bt := b.open
	if bt == nil {
		return
	}
	b.open = nil
	b.sized = cap(bt.enc)
	if bt.n == 0 {
		b.free = append(b.free, bt)
		return
	}
	b.full = append(b.full, bt)
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// run sends the closed batches as they come, and the open one every
// interval, until Shutdown.
func (b *batcher) run(ctx context.Context) {
	defer close(b.done)
	tick := time.NewTicker(b.interval)
	defer tick.Stop()
	var body []byte
	for {
		select {
		case <-b.kick:
			body = b.sendFull(ctx, body, false)
		case <-tick.C:
			body = b.sendFull(ctx, body, true)
		case ack := <-b.flushes:
			body = b.sendFull(ctx, body, true)
			close(ack)
		case <-b.quit:
			b.sendFull(ctx, body, true)
			return
		}
	}
}

// sendFull sends the closed batches, oldest first, and the open one too
// if all; it stops when ctx ends, leaving the rest queued. body is the
// request buffer, reused.
func (b *batcher) sendFull(ctx context.Context, body []byte, all bool) []byte {
	b.mu.Lock()
	if all {
		b.closeOpen()
	}
	b.mu.Unlock()
	for ctx.Err() == nil {
		b.mu.Lock()
		if len(b.full) == 0 {
			b.mu.Unlock()
			return body
		}
		bt := b.full[0]
		b.full = b.full[1:]
		b.mu.Unlock()

		body = appendResourceLogs(body[:0], bt.res, bt.scope, bt.enc)
		rctx, cancel := context.WithTimeout(ctx, b.timeout)
		ps, err := b.send(rctx, body)
		cancel()
		b.settle(ctx, bt.n, ps, err)

		b.mu.Lock()
		b.records -= bt.n
		b.bytes -= len(bt.enc)
		b.free = append(b.free, bt)
		b.mu.Unlock()
	}
	return body
}

// settle counts a batch sent, or failed: on a 2xx answer the records are
// exported, less those its partial_success rejected (failed).
func (b *batcher) settle(ctx context.Context, n int, ps partialSuccess, err error) {
	switch {
	case errors.Is(err, errResponse):
		// A 2xx answer: the records arrived, whatever the body says.
		b.exported.Add(int64(n))
		b.log.Log(ctx, diag.L1, "audit export: the collector's answer is not an ExportLogsServiceResponse", "records", n)
	case err != nil:
		b.failed.Add(int64(n))
		b.log.Log(ctx, diag.L1, "audit export failed", "records", n, "err", cause(err))
	default:
		rejected := min(max(ps.Rejected, 0), int64(n))
		b.exported.Add(int64(n) - rejected)
		b.failed.Add(rejected)
		if rejected > 0 || ps.Message != "" {
			// The collector's message is not printed, as no answer's body
			// is: whether it gave one is said.
			b.log.Log(ctx, diag.L1, "audit export partial success", "records", n, "rejected", rejected, "message", ps.Message != "")
		}
	}
}

// ForceFlush sends every record emitted before it, within ctx.
func (b *batcher) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case b.flushes <- ack:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown sends what is queued, within ctx, and stops the goroutine:
// when ctx ends first, the request in flight is cut short (its records
// fail) and the records still queued are counted as dropped, as is every
// record emitted later. It returns once the goroutine has ended; a second
// call does nothing.
func (b *batcher) Shutdown(ctx context.Context) error {
	var err error
	b.shutOnce.Do(func() {
		b.mu.Lock()
		b.stopped = true
		b.mu.Unlock()
		close(b.quit)
		select {
		case <-b.done:
		case <-ctx.Done():
			err = ctx.Err()
			b.cancel()
			<-b.done
		}
		b.cancel()
		b.mu.Lock()
		b.closeOpen()
		b.dropped.Add(int64(b.records))
		b.records, b.bytes, b.full = 0, 0, nil
		b.mu.Unlock()
	})
	return err
}
