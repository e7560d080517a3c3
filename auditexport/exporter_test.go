package auditexport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	collogsv1 "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// receiver is a loopback OTLP/HTTP logs endpoint: it decodes every
// request as the official ExportLogsServiceRequest (protobuf, the
// encoding the exporter sends) and answers an empty ExportLogsServiceResponse.
type receiver struct {
	mu       sync.Mutex
	requests int
	records  []*logsv1.LogRecord
	resource map[string]string
	paths    []string
	ctypes   []string
	bad      []error
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var d collogsv1.ExportLogsServiceRequest
	err := proto.Unmarshal(body, &d)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.paths = append(r.paths, req.URL.Path)
	r.ctypes = append(r.ctypes, req.Header.Get("Content-Type"))
	if err != nil {
		r.bad = append(r.bad, err)
		w.WriteHeader(400)
		return
	}
	for _, rl := range d.ResourceLogs {
		r.resource = map[string]string{}
		for _, a := range rl.Resource.Attributes {
			r.resource[a.Key] = a.Value.GetStringValue()
		}
		for _, sl := range rl.ScopeLogs {
			if sl.Scope.GetName() != ScopeName {
				r.bad = append(r.bad, io.ErrUnexpectedEOF)
			}
			r.records = append(r.records, sl.LogRecords...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	b, _ := proto.Marshal(&collogsv1.ExportLogsServiceResponse{})
	w.Write(b)
}

func (r *receiver) got() []*logsv1.LogRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*logsv1.LogRecord(nil), r.records...)
}

func attrs(rec *logsv1.LogRecord) map[string]any {
	m := map[string]any{}
	for _, a := range rec.Attributes {
		switch v := a.Value.Value.(type) {
		case *commonv1.AnyValue_StringValue:
			m[a.Key] = v.StringValue
		case *commonv1.AnyValue_IntValue:
			m[a.Key] = v.IntValue
		default:
			m[a.Key] = a.Value.String()
		}
	}
	return m
}

func entry(i int) audit.Entry {
	req := capability.Network(capability.MustTarget("example.com", 443))
	return audit.Entry{
		Time: time.Date(2026, 12, 1, 20, 0, i, 0, time.UTC), ExecutionID: "id-" + string(rune('a'+i%26)),
		Tool: "fetch", Summary: "GET example.com", Requirement: &req,
		Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Rule: "allow example.com:443",
		Outcome: audit.OutcomeOK, Status: 200, Bytes: 1234, DurationMS: 56,
	}
}

// TestRecordsArriveWithTheAuditFields: lines written through an
// audit.Log with the exporter as its sink arrive at the collector, in
// order, each with the line's fields.
func TestRecordsArriveWithTheAuditFields(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	x, err := New(&Options{Endpoint: srv.URL, BatchSize: 4, Interval: 20 * time.Millisecond, Resource: map[string]string{"service.version": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	ws := testws.New(t, testws.Spec{})
	log := audit.Open(ws).WithSink(x)
	for i := range 10 {
		if err := log.Append(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	denied := entry(10)
	denied.Decision, denied.DecidedBy, denied.Outcome, denied.Status, denied.Rule = audit.DecisionDeny, audit.ByUnanswered, "not_approved", 0, ""
	if err := log.Append(denied); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := x.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if len(rcv.bad) != 0 {
		t.Fatalf("the collector could not decode: %v", rcv.bad)
	}
	got := rcv.got()
	if len(got) != 11 {
		t.Fatalf("%d records arrived; want 11", len(got))
	}
	if st := x.Stats(); st != (Stats{Exported: 11}) {
		t.Errorf("stats = %+v; want 11 exported", st)
	}
	if rcv.requests < 3 {
		t.Errorf("%d requests; want batches of at most 4 (3 or more)", rcv.requests)
	}
	if rcv.paths[0] != "/v1/logs" || rcv.ctypes[0] != "application/x-protobuf" {
		t.Errorf("POST %s (%s); want /v1/logs, application/x-protobuf", rcv.paths[0], rcv.ctypes[0])
	}
	if rcv.resource["service.name"] != "ocfetch" || rcv.resource["service.version"] != "test" {
		t.Errorf("resource = %v", rcv.resource)
	}
	want := map[string]any{
		"ocfetch.execution_id": "id-a", "ocfetch.tool": "fetch", "ocfetch.summary": "GET example.com",
		"ocfetch.decision": "allow", "ocfetch.decided_by": "rule", "ocfetch.rule": "allow example.com:443",
		"ocfetch.outcome": "ok", "ocfetch.bytes": int64(1234), "ocfetch.duration_ms": int64(56),
		"ocfetch.capability": "network", "server.address": "example.com", "server.port": int64(443),
		"http.response.status_code": int64(200),
	}
	if d := cmp.Diff(want, attrs(got[0])); d != "" {
		t.Errorf("first record's attributes (-want +got):\n%s", d)
	}
	first := got[0]
	if first.TimeUnixNano != uint64(entry(0).Time.UnixNano()) || first.SeverityText != "INFO" || first.EventName != EventName ||
		first.Body.GetStringValue() != "GET example.com allow ok" {
		t.Errorf("first record = %v", first)
	}
	last := got[10]
	if last.SeverityText != "WARN" || attrs(last)["ocfetch.outcome"] != "not_approved" {
		t.Errorf("last record = %v; want WARN not_approved", last)
	}
}

// TestCollectorDownCallsUnaffected: with the collector unreachable (a
// closed loopback port) or refusing, every Append still succeeds at once,
// the file has every line, and the records are counted as failed or
// dropped — nothing blocks.
func TestCollectorDownCallsUnaffected(t *testing.T) {
	down := "http://127.0.0.1:" + strconv.Itoa(int(testnet.RefusedPort(t)))
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer refusing.Close()

	for name, endpoint := range map[string]string{"down": down, "503": refusing.URL} {
		t.Run(name, func(t *testing.T) {
			x, err := New(&Options{Endpoint: endpoint, QueueSize: 8, BatchSize: 4, Interval: 10 * time.Millisecond, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ws := testws.New(t, testws.Spec{})
			log := audit.Open(ws).WithSink(x)
			const n = 200
			for i := range n {
				if err := log.Append(entry(i)); err != nil {
					t.Fatalf("Append %d: %v", i, err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			x.Shutdown(ctx)
			lines, err := audit.Read(ws, 0)
			if err != nil || len(lines) != n {
				t.Fatalf("the file has %d lines (%v); want %d", len(lines), err, n)
			}
			st := x.Stats()
			if st.Exported != 0 || st.Failed+st.Dropped != n || st.Dropped == 0 {
				t.Errorf("stats = %+v; want all %d failed or dropped, some dropped (queue of 8)", st, n)
			}
		})
	}
}

func TestExportAfterShutdownIsDropped(t *testing.T) {
	x, err := New(&Options{Endpoint: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	x.Shutdown(context.Background())
	x.Export(entry(0))
	if st := x.Stats(); st.Dropped != 1 {
		t.Errorf("stats = %+v; want 1 dropped", st)
	}
}

func TestParseEndpoint(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:4318":                  "http://127.0.0.1:4318/v1/logs",
		"https://otel.corp.example/":             "https://otel.corp.example/v1/logs",
		"https://otel.corp.example/otlp/v1/logs": "https://otel.corp.example/otlp/v1/logs",
	} {
		if got, err := ParseEndpoint(raw); err != nil || got != want {
			t.Errorf("ParseEndpoint(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"", "ftp://x", "http://u:p@x", "http://x/?token=1", "127.0.0.1:4318", "http://", "http://:4318", "https://:443/v1/logs"} {
		if _, err := ParseEndpoint(raw); err == nil {
			t.Errorf("ParseEndpoint(%q) accepted", raw)
		}
	}
}

// TestEnvironmentDoesNotRedirect: the OTEL_* variables the OpenTelemetry
// SDK reads elsewhere configure nothing here: the records go to the
// configured endpoint, with no header from the environment, and the
// batch settings are the Options'.
func TestEnvironmentDoesNotRedirect(t *testing.T) {
	rcv, other := &receiver{}, &receiver{}
	srv, otherSrv := httptest.NewServer(rcv), httptest.NewServer(other)
	defer srv.Close()
	defer otherSrv.Close()
	var mu sync.Mutex
	var leaked []string
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if v := r.Header.Get("X-From-Env"); v != "" {
			leaked = append(leaked, v)
		}
		mu.Unlock()
		rcv.ServeHTTP(w, r)
	})
	for k, v := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":      otherSrv.URL,
		"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": otherSrv.URL + "/v1/logs",
		"OTEL_EXPORTER_OTLP_HEADERS":       "x-from-env=1",
		"OTEL_EXPORTER_OTLP_LOGS_HEADERS":  "x-from-env=2",
		"OTEL_BLRP_MAX_QUEUE_SIZE":         "1",
		"OTEL_RESOURCE_ATTRIBUTES":         "service.name=other",
		// Nor can the SDK's limits cut a record.
		"OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT":        "1",
		"OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT": "2",
	} {
		t.Setenv(k, v)
	}
	x, err := New(&Options{Endpoint: srv.URL, Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		x.Export(entry(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := x.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.got()); n != 20 || x.Stats() != (Stats{Exported: 20}) {
		t.Errorf("%d records at the configured collector, stats %+v; want 20 exported", n, x.Stats())
	}
	if n := len(other.got()); n != 0 {
		t.Errorf("%d records went to the environment's endpoint", n)
	}
	if len(leaked) != 0 || rcv.resource["service.name"] != "ocfetch" {
		t.Errorf("headers from the environment %v, resource %v", leaked, rcv.resource)
	}
	if got := rcv.got(); len(got) > 0 {
		if a := attrs(got[0]); len(a) != 13 || a["ocfetch.summary"] != "GET example.com" {
			t.Errorf("attributes %v; want all 13, uncut", a)
		}
	}
}

// syncBuffer is a log destination safe for the sender's goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// TestCollectorAnswers: the collector's answer is read by the OTLP/HTTP
// rules. A 2xx is success, less the records its partial_success rejects
// (counted failed); any other status fails the batch and is named by the
// status in the log line, which holds neither the collector's URL nor its
// answer's body; a 2xx whose body is not a response still delivered.
func TestCollectorAnswers(t *testing.T) {
	response := func(ps *collogsv1.ExportLogsPartialSuccess) []byte {
		b, err := proto.Marshal(&collogsv1.ExportLogsServiceResponse{PartialSuccess: ps})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		status int
		ctype  string
		body   []byte
		want   Stats
		log    string
	}{
		{name: "partial success", status: 200, ctype: "application/x-protobuf",
			body: response(&collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: 2, ErrorMessage: "secret-answer"}),
			want: Stats{Exported: 3, Failed: 2}, log: "rejected=2"},
		{name: "warning", status: 200, ctype: "application/x-protobuf; charset=binary",
			body: response(&collogsv1.ExportLogsPartialSuccess{ErrorMessage: "secret-answer"}),
			want: Stats{Exported: 5}, log: "rejected=0 message=true"},
		{name: "rejects more than sent", status: 200, ctype: "application/x-protobuf",
			body: response(&collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: 99}),
			want: Stats{Failed: 5}, log: "rejected=5"},
		{name: "202, JSON", status: 202, ctype: "application/json", body: []byte(`{"partialSuccess":{"rejectedLogRecords":"5"}}`),
			want: Stats{Exported: 5}},
		{name: "400", status: 400, ctype: "text/plain", body: []byte("secret-answer"),
			want: Stats{Failed: 5}, log: `err="collector answered 400 Bad Request"`},
		{name: "413", status: 413, body: response(nil), want: Stats{Failed: 5}, log: "collector answered 413"},
		{name: "500", status: 500, want: Stats{Failed: 5}, log: "collector answered 500 Internal Server Error"},
		{name: "not a response", status: 200, ctype: "application/x-protobuf", body: []byte("secret-answer"),
			want: Stats{Exported: 5}, log: "not an ExportLogsServiceResponse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				w.Write(tc.body)
			}))
			defer srv.Close()
			var logs syncBuffer
			x, err := New(&Options{Endpoint: srv.URL + "/secret-path", BatchSize: 5, Interval: time.Hour,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				x.Export(entry(i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := x.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if got := x.Stats(); got != tc.want {
				t.Errorf("stats = %+v; want %+v", got, tc.want)
			}
			out := logs.String()
			if !strings.Contains(out, tc.log) || (tc.log == "") != (out == "") {
				t.Errorf("log = %q; want a line with %q", out, tc.log)
			}
			if strings.Contains(out, "secret") || strings.Contains(out, "127.0.0.1") {
				t.Errorf("log = %q: it holds the collector's URL or answer", out)
			}
		})
	}
}
