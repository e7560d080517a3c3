package auditexport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/diag"
)

// Defaults of Options.
const (
	DefaultQueueSize = 4096
	DefaultBatchSize = 256
	DefaultInterval  = 2 * time.Second
	DefaultTimeout   = 5 * time.Second
	// LogsPath is the OTLP/HTTP path of log records.
	LogsPath = "/v1/logs"
)

// ErrEndpoint is wrapped by every error about the collector's URL.
var ErrEndpoint = errors.New("audit export endpoint")

// Options configure an [Exporter]. Only Endpoint is required.
type Options struct {
	// Endpoint is the collector's OTLP/HTTP URL: "http://127.0.0.1:4318"
	// (LogsPath is appended) or a URL whose path ends in /v1/logs.
	Endpoint string
	// Resource are the resource attributes of every record; service.name
	// is "ocfetch" unless set here.
	Resource map[string]string
	// QueueSize bounds the records waiting to be sent; past it a record is
	// dropped and counted. 0 means DefaultQueueSize.
	QueueSize int
	// BatchSize is the most records one request carries. 0 means
	// DefaultBatchSize.
	BatchSize int
	// Interval is the longest a record waits for its batch to fill. 0
	// means DefaultInterval.
	Interval time.Duration
	// Timeout bounds one export request. 0 means DefaultTimeout.
	Timeout time.Duration
	// Client sends the requests. nil: a client of its own with Timeout,
	// TLS 1.2 or later and no proxy from the environment. The collector is
	// the operator's choice (as an upstream proxy is), so it is not dialed
	// through the egress guard, which admits public addresses only.
	Client *http.Client
	// Logger receives a line per failed export (domain AUDIT), never a
	// record. nil discards.
	Logger *slog.Logger
}

// Stats are an exporter's counts since it started.
type Stats struct {
	// Exported records reached the collector (a 2xx answer).
	Exported int64
	// Dropped records never left: the queue was full, or the exporter
	// was shut down.
	Dropped int64
	// Failed records were sent in a request that failed (network, non-2xx).
	Failed int64
}

// Exporter sends audit lines to an OpenTelemetry collector as OTLP log
// records over HTTP (JSON encoding), in batches, from one goroutine.
// [Exporter.Export] never blocks and never fails a call: the local JSONL
// file stays the record of truth, the export is a copy. Its methods are
// safe for concurrent use.
type Exporter struct {
	url      string
	client   *http.Client
	resource []kv
	batch    int
	interval time.Duration
	log      *slog.Logger

	queue chan audit.Entry
	// closing is closed by Shutdown; done when the sender has returned.
	closing chan struct{}
	done    chan struct{}
	once    sync.Once
	// flushCtx bounds the last flush on Shutdown.
	flushMu  sync.Mutex
	flushCtx context.Context

	exported, dropped, failed atomic.Int64
}

var _ audit.Sink = (*Exporter)(nil)

// New starts an exporter. It fails only for an endpoint that is not an
// absolute http or https URL without credentials, query or fragment.
// Stop it with [Exporter.Shutdown].
func New(o *Options) (*Exporter, error) {
	if o == nil {
		o = &Options{}
	}
	u, err := ParseEndpoint(o.Endpoint)
	if err != nil {
		return nil, err
	}
	e := &Exporter{
		url:      u,
		client:   o.Client,
		batch:    orDefault(o.BatchSize, DefaultBatchSize),
		interval: o.Interval,
		log:      diag.For(o.Logger, diag.DomainAudit),
		queue:    make(chan audit.Entry, orDefault(o.QueueSize, DefaultQueueSize)),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
		flushCtx: context.Background(),
	}
	if e.interval <= 0 {
		e.interval = DefaultInterval
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if e.client == nil {
		e.client = &http.Client{Timeout: timeout, Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: timeout,
			MaxIdleConns:        2,
			IdleConnTimeout:     30 * time.Second,
		}}
	}
	e.resource = resourceAttrs(o.Resource)
	go e.run()
	return e, nil
}

// ParseEndpoint checks a collector URL and returns the logs URL.
func ParseEndpoint(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "", fmt.Errorf("%w: no endpoint", ErrEndpoint)
	case err != nil || u.Opaque != "":
		return "", fmt.Errorf("%w: not a valid URL", ErrEndpoint)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%w: must be http:// or https://", ErrEndpoint)
	case u.Host == "":
		return "", fmt.Errorf("%w: no host", ErrEndpoint)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("%w: must have no credentials, query or fragment", ErrEndpoint)
	}
	if len(u.Path) < len(LogsPath) || u.Path[len(u.Path)-len(LogsPath):] != LogsPath {
		u.Path = trimSlash(u.Path) + LogsPath
		u.RawPath = ""
	}
	return u.String(), nil
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// Export queues e to be sent. It never blocks: with the queue full, or
// after Shutdown, e is dropped and counted. It implements [audit.Sink]:
// audit.Log calls it after each line is written to the file.
func (x *Exporter) Export(e audit.Entry) {
	select {
	case <-x.closing:
		x.dropped.Add(1)
		return
	default:
	}
	select {
	case x.queue <- e:
	default:
		x.dropped.Add(1)
	}
}

// Stats returns the counts so far.
func (x *Exporter) Stats() Stats {
	return Stats{Exported: x.exported.Load(), Dropped: x.dropped.Load(), Failed: x.failed.Load()}
}

// Shutdown sends what is queued, within ctx, and stops the exporter;
// records queued later are dropped. What could not be sent by ctx's end
// is counted as dropped. It returns ctx's error if the flush was cut
// short.
func (x *Exporter) Shutdown(ctx context.Context) error {
	x.once.Do(func() {
		x.flushMu.Lock()
		x.flushCtx = ctx
		x.flushMu.Unlock()
		close(x.closing)
	})
	select {
	case <-x.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (x *Exporter) run() {
	defer close(x.done)
	t := time.NewTicker(x.interval)
	defer t.Stop()
	buf := make([]audit.Entry, 0, x.batch)
	ctx := context.Background()
	for {
		select {
		case e := <-x.queue:
			buf = append(buf, e)
			if len(buf) >= x.batch {
				x.send(ctx, buf)
				buf = buf[:0]
			}
		case <-t.C:
			if len(buf) > 0 {
				x.send(ctx, buf)
				buf = buf[:0]
			}
		case <-x.closing:
			x.flushMu.Lock()
			fctx := x.flushCtx
			x.flushMu.Unlock()
			for {
				select {
				case e := <-x.queue:
					buf = append(buf, e)
					if len(buf) >= x.batch {
						x.sendOrDrop(fctx, buf)
						buf = buf[:0]
					}
					continue
				default:
				}
				break
			}
			x.sendOrDrop(fctx, buf)
			return
		}
	}
}

// sendOrDrop sends buf unless ctx is done, in which case its records are
// dropped.
func (x *Exporter) sendOrDrop(ctx context.Context, buf []audit.Entry) {
	if len(buf) == 0 {
		return
	}
	if ctx.Err() != nil {
		x.dropped.Add(int64(len(buf)))
		return
	}
	x.send(ctx, buf)
}

// send posts one batch. A failure counts the batch as failed; it is not
// retried (the JSONL file has every line).
func (x *Exporter) send(ctx context.Context, buf []audit.Entry) {
	body := encode(x.resource, buf, time.Now())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		x.failed.Add(int64(len(buf)))
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := x.client.Do(req)
	if err != nil {
		x.failed.Add(int64(len(buf)))
		x.log.Log(ctx, diag.L1, "audit export failed", "records", len(buf), "err", errors.Unwrap(err))
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		x.failed.Add(int64(len(buf)))
		x.log.Log(ctx, diag.L1, "audit export refused by the collector", "records", len(buf), "status", resp.StatusCode)
		return
	}
	x.exported.Add(int64(len(buf)))
}
