package auditexport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/diag"
)

// Defaults of Options.
const (
	DefaultQueueSize = 4096
	// DefaultQueueBytes bounds the encoded records waiting (about 400
	// bytes each).
	DefaultQueueBytes = 4 << 20
	DefaultBatchSize  = 256
	DefaultInterval   = 2 * time.Second
	DefaultTimeout    = 5 * time.Second
	// LogsPath is the OTLP/HTTP path of log records.
	LogsPath = "/v1/logs"
)

// ScopeName is the instrumentation scope of every record.
const ScopeName = "github.com/ocfetch/ocfetch/audit"

// EventName is every record's event name.
const EventName = "ocfetch.audit"

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
	// QueueSize bounds the records waiting to be sent or in a request
	// not yet answered; past it a new record is dropped and counted. 0
	// means DefaultQueueSize.
	QueueSize int
	// QueueBytes bounds the size of those records, encoded; past it a
	// record is dropped and counted. 0 means DefaultQueueBytes.
	QueueBytes int
	// BatchSize is the most records one request carries. 0 means
	// DefaultBatchSize.
	BatchSize int
	// Interval is the longest a record waits for its batch to fill. 0
	// means DefaultInterval.
	Interval time.Duration
	// Timeout bounds one export request. 0 means DefaultTimeout.
	Timeout time.Duration
	// Client sends the requests (a copy of it, whose redirects are
	// followed on the endpoint's scheme, host and port only). nil: a
	// client of its own with Timeout, TLS 1.2 or later and no proxy from
	// the environment. The collector is the operator's choice (as an
	// upstream proxy is), so it is not dialed through the egress guard,
	// which admits public addresses only.
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
	// Failed records were sent in a request that failed (network,
	// non-2xx), or the collector's 2xx answer rejected them
	// (partial_success).
	Failed int64
}

// Exporter sends audit lines to an OpenTelemetry collector as OTLP log
// records over HTTP (protobuf encoding), through the OpenTelemetry Go
// logs SDK: a LoggerProvider whose processor (the SDK's extension
// interface, sdklog.Processor) is this package's batcher, which encodes
// each record into a bounded batch as it is emitted and POSTs each batch
// as an ExportLogsServiceRequest (no generated protobuf code, no gRPC in
// the binary). [Exporter.Export] never blocks and never fails a call:
// the local JSONL file stays the record of truth, the export is a copy.
// Its methods are safe for concurrent use.
type Exporter struct {
	provider *sdklog.LoggerProvider
	logger   otellog.Logger
	batch    *batcher
	client   *http.Client
	// ownClient: client is the Exporter's, so Shutdown closes its idle
	// connections.
	ownClient bool
	log       *slog.Logger

	// mu: Export holds it shared, Shutdown exclusively to set closed, so
	// no record is handed to a provider that is shutting down (which
	// would drop it uncounted).
	mu     sync.RWMutex
	closed bool

	once sync.Once
	err  error
}

var _ audit.Sink = (*Exporter)(nil)

// New starts an exporter. It fails only for an endpoint that is not an
// absolute http or https URL without credentials, query or fragment.
// Stop it with [Exporter.Shutdown].
//
// The OTEL_* environment variables do not configure it: the endpoint,
// headers, TLS and batching come from Options (the user's or the managed
// settings) only.
func New(o *Options) (*Exporter, error) {
	if o == nil {
		o = &Options{}
	}
	u, err := ParseEndpoint(o.Endpoint)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	interval := o.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: timeout, Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: timeout,
			// The answer's head, as its body (maxResponse), is bounded.
			MaxResponseHeaderBytes: maxResponseHead,
			MaxIdleConns:           2,
			IdleConnTimeout:        30 * time.Second,
		}}
	} else {
		// A copy: the caller's client keeps its own redirect policy.
		c := *client
		client = &c
	}
	client.CheckRedirect = sameOrigin
	log := diag.For(o.Logger, diag.DomainAudit)
	send := &sender{url: u, client: client}
	x := &Exporter{client: client, ownClient: o.Client == nil, log: log}
	x.batch = newBatcher(&batcher{
		send:       send.post,
		log:        log,
		maxRecords: orDefault(o.QueueSize, DefaultQueueSize),
		maxBytes:   orDefault(o.QueueBytes, DefaultQueueBytes),
		batchSize:  orDefault(o.BatchSize, DefaultBatchSize),
		interval:   interval,
		timeout:    timeout,
	})
	x.provider = newProvider(o.Resource, x.batch)
	x.logger = x.provider.Logger(ScopeName)
	return x, nil
}

// newProvider is the LoggerProvider of an Exporter, records handed to
// proc: the resource of resourceAttrs(res), every setting given so that
// no OTEL_* variable changes a record.
func newProvider(res map[string]string, proc sdklog.Processor) *sdklog.LoggerProvider {
	return sdklog.NewLoggerProvider(
		sdklog.WithResource(resource.NewSchemaless(resourceAttrs(res)...)),
		sdklog.WithProcessor(proc),
		// record's keys are distinct by construction: the SDK's
		// per-record de-duplication (a map per record) is skipped.
		sdklog.WithAllowKeyDuplication(),
		// Set, so OTEL_LOGRECORD_ATTRIBUTE_* cannot cut a record.
		sdklog.WithAttributeCountLimit(-1),
		sdklog.WithAttributeValueLengthLimit(-1),
	)
}

// maxRedirects bounds the redirects followed on the collector.
const maxRedirects = 10

// sameOrigin is the export client's redirect policy: a redirect is
// followed only to the scheme, host and port of the request it answers
// (so of the endpoint), at most maxRedirects times. A redirect elsewhere
// is not followed: the 3xx answer fails the batch, and the records never
// go to a server the configuration did not name.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return http.ErrUseLastResponse
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return http.ErrUseLastResponse
	}
	return nil
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
	case u.Hostname() == "": // "http://:4318" would dial every address of this machine
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

// Export emits e through the SDK's logger into the batch queue. It
// never blocks on I/O: with QueueSize records (or QueueBytes) unsettled,
// or after Shutdown, e is dropped and counted. It implements
// [audit.Sink]: audit.Log calls it after each line is written to the
// file.
func (x *Exporter) Export(e audit.Entry) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		x.batch.dropped.Add(1)
		return
	}
	x.logger.Emit(context.Background(), record(e))
}

// Stats returns the counts so far.
func (x *Exporter) Stats() Stats {
	b := x.batch
	return Stats{Exported: b.exported.Load(), Dropped: b.dropped.Load(), Failed: b.failed.Load()}
}

// Shutdown sends what is queued, within ctx, and stops the exporter;
// records queued later are dropped. When ctx ends first, the request in
// flight is cut short (its records fail) and what was not sent is
// counted as dropped. It returns ctx's error if the flush was cut short.
func (x *Exporter) Shutdown(ctx context.Context) error {
	x.once.Do(func() {
		x.mu.Lock()
		x.closed = true
		x.mu.Unlock()
		err := x.provider.Shutdown(ctx)
		// The provider shuts its processor down unless ctx had ended;
		// the batcher's goroutine is stopped either way.
		x.batch.Shutdown(ctx)
		if x.ownClient {
			x.client.CloseIdleConnections()
		}
		if ctx.Err() != nil {
			x.err = ctx.Err()
		} else if err != nil {
			x.log.Log(ctx, diag.L1, "audit export shutdown", "err", cause(err))
		}
	})
	return x.err
}

// cause names an export failure without the collector's URL or the body
// of its answer.
func cause(err error) string {
	var ne net.Error
	var st errStatus
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &st):
		return st.Error()
	case errors.As(err, &ne):
		return "collector unreachable"
	default:
		return "request failed"
	}
}

// resourceAttrs returns the resource attributes: service.name "ocfetch"
// and host.name unless given, then attrs, sorted by key.
func resourceAttrs(attrs map[string]string) []attribute.KeyValue {
	m := map[string]string{"service.name": "ocfetch"}
	if h, err := os.Hostname(); err == nil {
		m["host.name"] = h
	}
	for k, v := range attrs {
		m[k] = v
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]attribute.KeyValue, 0, len(keys))
	for _, k := range keys {
		out = append(out, attribute.String(k, m[k]))
	}
	return out
}

// record is the log record one audit line becomes. Its attributes are
// exactly the fields of the line (audit.Entry has no field for a URL,
// path, query, header or body), named ocfetch.* except where
// OpenTelemetry's semantic conventions have a name (server.address,
// server.port, http.response.status_code).
func record(e audit.Entry) otellog.Record {
	var r otellog.Record
	// The observed timestamp is the SDK's: the time of Emit.
	r.SetTimestamp(e.Time)
	r.SetEventName(EventName)
	if e.Decision != audit.DecisionAllow || e.Outcome != audit.OutcomeOK {
		r.SetSeverity(otellog.SeverityWarn)
		r.SetSeverityText("WARN")
	} else {
		r.SetSeverity(otellog.SeverityInfo)
		r.SetSeverityText("INFO")
	}
	r.SetBody(attribute.StringValue(e.Summary + " " + string(e.Decision) + " " + e.Outcome))
	var a [16]attribute.KeyValue
	attrs := append(a[:0],
		attribute.String("ocfetch.execution_id", e.ExecutionID),
		attribute.String("ocfetch.tool", e.Tool),
		attribute.String("ocfetch.summary", e.Summary),
		attribute.String("ocfetch.decision", string(e.Decision)),
		attribute.String("ocfetch.decided_by", string(e.DecidedBy)),
		attribute.String("ocfetch.outcome", e.Outcome),
		attribute.Int64("ocfetch.bytes", e.Bytes),
		attribute.Int64("ocfetch.duration_ms", e.DurationMS),
	)
	if e.Rule != "" {
		attrs = append(attrs, attribute.String("ocfetch.rule", e.Rule))
	}
	if q := e.Requirement; q != nil {
		attrs = append(attrs, attribute.String("ocfetch.capability", string(q.Kind)),
			attribute.String("server.address", q.Target.Host()), attribute.Int("server.port", int(q.Target.Port())))
	}
	if e.Status != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", e.Status))
	}
	if e.BytesUp != 0 || e.BytesDown != 0 {
		attrs = append(attrs, attribute.Int64("ocfetch.bytes_up", e.BytesUp), attribute.Int64("ocfetch.bytes_down", e.BytesDown))
	}
	r.AddAttributes(attrs...)
	return r
}
