package auditexport

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	collogsv1 "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcev1 "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
)

// capture is a Processor that keeps what the SDK hands it.
type capture struct{ records []sdklog.Record }

func (c *capture) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.records = append(c.records, r.Clone())
	return nil
}
func (*capture) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (*capture) Shutdown(context.Context) error                         { return nil }
func (*capture) ForceFlush(context.Context) error                       { return nil }

// sdkRecords are the SDK's records of entries, through the Exporter's
// own provider settings and record().
func sdkRecords(t testing.TB, entries ...audit.Entry) []sdklog.Record {
	t.Helper()
	c := &capture{}
	p := newProvider(map[string]string{"service.version": "test"}, c)
	defer p.Shutdown(context.Background())
	l := p.Logger(ScopeName)
	for _, e := range entries {
		l.Emit(context.Background(), record(e))
	}
	return c.records
}

// decode is appendRequest's output read by the official generated types.
func decode(t testing.TB, b []byte) *collogsv1.ExportLogsServiceRequest {
	t.Helper()
	var req collogsv1.ExportLogsServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		t.Fatalf("the official types cannot decode the request: %v", err)
	}
	return &req
}

// The oracle: the OTLP message a record is, built with the official
// types the way the OpenTelemetry Go OTLP exporters build it.

func wantRecord(r *sdklog.Record) *logsv1.LogRecord {
	ns := func(t time.Time) uint64 {
		if t.IsZero() || t.UnixNano() < 0 {
			return 0
		}
		return uint64(t.UnixNano())
	}
	sev := logsv1.SeverityNumber(0)
	if s := r.Severity(); s >= 1 && s <= 24 {
		sev = logsv1.SeverityNumber(s)
	}
	w := &logsv1.LogRecord{
		TimeUnixNano:           ns(r.Timestamp()),
		ObservedTimeUnixNano:   ns(r.ObservedTimestamp()),
		EventName:              valid(r.EventName()),
		SeverityNumber:         sev,
		SeverityText:           valid(r.SeverityText()),
		Body:                   wantValue(r.Body()),
		DroppedAttributesCount: uint32(min(r.DroppedAttributes(), math.MaxUint32)),
		Flags:                  uint32(r.TraceFlags()),
	}
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		w.Attributes = append(w.Attributes, wantKeyValue(kv))
		return true
	})
	if id := r.TraceID(); id.IsValid() {
		w.TraceId = id[:]
	}
	if id := r.SpanID(); id.IsValid() {
		w.SpanId = id[:]
	}
	return w
}

func valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func wantKeyValue(kv attribute.KeyValue) *commonv1.KeyValue {
	return &commonv1.KeyValue{Key: valid(string(kv.Key)), Value: wantValue(kv.Value)}
}

func wantValue(v attribute.Value) *commonv1.AnyValue {
	str := func(s string) *commonv1.AnyValue {
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_StringValue{StringValue: valid(s)}}
	}
	array := func(vs []*commonv1.AnyValue) *commonv1.AnyValue {
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_ArrayValue{ArrayValue: &commonv1.ArrayValue{Values: vs}}}
	}
	var vs []*commonv1.AnyValue
	switch v.Type() {
	case attribute.STRING:
		return str(v.AsString())
	case attribute.INT64:
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.BOOL:
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.FLOAT64:
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.BYTESLICE:
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		for _, x := range v.AsBoolSlice() {
			vs = append(vs, wantValue(attribute.BoolValue(x)))
		}
		return array(vs)
	case attribute.INT64SLICE:
		for _, x := range v.AsInt64Slice() {
			vs = append(vs, wantValue(attribute.Int64Value(x)))
		}
		return array(vs)
	case attribute.FLOAT64SLICE:
		for _, x := range v.AsFloat64Slice() {
			vs = append(vs, wantValue(attribute.Float64Value(x)))
		}
		return array(vs)
	case attribute.STRINGSLICE:
		for _, x := range v.AsStringSlice() {
			vs = append(vs, str(x))
		}
		return array(vs)
	case attribute.SLICE:
		for _, x := range v.AsSlice() {
			vs = append(vs, wantValue(x))
		}
		return array(vs)
	case attribute.MAP:
		var kvs []*commonv1.KeyValue
		for _, kv := range v.AsMap() {
			kvs = append(kvs, wantKeyValue(kv))
		}
		return &commonv1.AnyValue{Value: &commonv1.AnyValue_KvlistValue{KvlistValue: &commonv1.KeyValueList{Values: kvs}}}
	case attribute.EMPTY:
		return &commonv1.AnyValue{}
	}
	return str("INVALID")
}

// appendRequest appends the ExportLogsServiceRequest of records as the
// batcher writes it: each run of records of one resource and scope
// encoded by appendRecord, then wrapped by appendResourceLogs.
func appendRequest(b []byte, records []sdklog.Record) []byte {
	var enc []byte
	for i := 0; i < len(records); {
		res, scope := records[i].Resource(), records[i].InstrumentationScope()
		enc = enc[:0]
		j := i
		for ; j < len(records) && records[j].Resource() == res && records[j].InstrumentationScope() == scope; j++ {
			enc = appendRecord(enc, &records[j])
		}
		b = appendResourceLogs(b, res, scope, enc)
		i = j
	}
	return b
}

// checkRoundTrip encodes records as one request, decodes it with the
// official types and compares every field with the oracle's.
func checkRoundTrip(t testing.TB, records []sdklog.Record) *collogsv1.ExportLogsServiceRequest {
	t.Helper()
	req := decode(t, appendRequest(nil, records))
	var got []*logsv1.LogRecord
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			got = append(got, sl.LogRecords...)
		}
	}
	want := make([]*logsv1.LogRecord, len(records))
	for i := range records {
		want[i] = wantRecord(&records[i])
	}
	if d := cmp.Diff(want, got, protocmp.Transform()); d != "" {
		t.Fatalf("decoded records (-want +got):\n%s", d)
	}
	return req
}

// FuzzRecordRoundTrip: an audit entry, whatever its fields, becomes a
// record that the official OTLP types decode to the record the SDK
// holds, field for field, under the exporter's resource and scope; and
// the decoded record carries the entry's own fields.
func FuzzRecordRoundTrip(f *testing.F) {
	// Seeds: a plain allowed fetch; a denial with no status or rule; a
	// proxied connection with byte counts; long and non-ASCII strings
	// (lengths of two and three bytes); invalid UTF-8; negative numbers.
	f.Add("fetch", "GET example.com", "id-1", "allow example.com:443", "ok", uint16(443), int64(1780000000), int64(5), 200, int64(1234), int64(56), int64(0), int64(0), false, true)
	f.Add("mcp", "GET example.org", "", "", "not_approved", uint16(0), int64(0), int64(0), 0, int64(0), int64(0), int64(0), int64(0), true, false)
	f.Add("proxy", "CONNECT api.example.net", "r", "allow *.example.net", "ok", uint16(8443), int64(2000000000), int64(999999999), 0, int64(7), int64(1), int64(1<<40), int64(3), false, true)
	f.Add("fetch", strings.Repeat("é", 200), strings.Repeat("x", 20000), "règle", "ok", uint16(1), int64(1), int64(1), 599, int64(-1), int64(-9), int64(-1), int64(1), false, true)
	f.Add("fe\xffch", "GET \xc3", "\x80", "r\xfe", "o\xff", uint16(65535), int64(-5), int64(0), -1, int64(math.MaxInt64), int64(math.MinInt64), int64(0), int64(0), true, true)
	f.Fuzz(func(t *testing.T, tool, summary, id, rule, outcome string, port uint16, sec, nsec int64, status int, bytes, dur, up, down int64, deny, network bool) {
		e := audit.Entry{
			// Within the years the nanosecond count can hold.
			Time:        time.Unix(sec%(1<<33), nsec%1e9).UTC(),
			ExecutionID: id, Tool: tool, Summary: summary, Rule: rule,
			Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Outcome: outcome,
			Status: status, Bytes: bytes, DurationMS: dur, BytesUp: up, BytesDown: down,
		}
		if deny {
			e.Decision, e.DecidedBy = audit.DecisionDeny, audit.ByDenied
		}
		if network && port != 0 {
			req := capability.Network(capability.MustTarget("example.com", port))
			e.Requirement = &req
		}
		recs := sdkRecords(t, e)
		if len(recs) != 1 {
			t.Fatalf("the SDK kept %d records; want 1", len(recs))
		}
		req := checkRoundTrip(t, recs)
		if len(req.ResourceLogs) != 1 || len(req.ResourceLogs[0].ScopeLogs) != 1 {
			t.Fatalf("request = %v; want one resource, one scope", req)
		}
		rl := req.ResourceLogs[0]
		if d := cmp.Diff(&resourcev1.Resource{Attributes: []*commonv1.KeyValue{
			wantKeyValue(attribute.String("host.name", hostname(t))),
			wantKeyValue(attribute.String("service.name", "ocfetch")),
			wantKeyValue(attribute.String("service.version", "test")),
		}}, rl.Resource, protocmp.Transform()); d != "" {
			t.Errorf("resource (-want +got):\n%s", d)
		}
		if s := rl.ScopeLogs[0].Scope; s.GetName() != ScopeName || s.GetVersion() != "" || len(s.GetAttributes()) != 0 {
			t.Errorf("scope = %v; want %s", s, ScopeName)
		}
		got := rl.ScopeLogs[0].LogRecords[0]
		if got.TimeUnixNano != uint64(max(e.Time.UnixNano(), 0)) || got.EventName != EventName ||
			got.Body.GetStringValue() != valid(summary+" "+string(e.Decision)+" "+outcome) {
			t.Errorf("record = %v; want the entry's time, event name and body", got)
		}
		if a := attrs(got); a["ocfetch.summary"] != valid(summary) || a["ocfetch.bytes"] != bytes || a["ocfetch.execution_id"] != valid(id) {
			t.Errorf("attributes = %v; want the entry's", a)
		}
	})
}

func hostname(t testing.TB) string {
	for it := resource.NewSchemaless(resourceAttrs(nil)...).Iter(); it.Next(); {
		if kv := it.Attribute(); kv.Key == "host.name" {
			return kv.Value.AsString()
		}
	}
	t.Skip("no host name on this machine")
	return ""
}

// TestEncodeEveryAttributeType: every attribute value type of the SDK,
// a body of each kind, trace context, severities out of range, a scope
// with version and attributes and a resource with a schema URL: the
// official types decode each field as the oracle says, and two scopes of
// one resource are two ScopeLogs runs.
func TestEncodeEveryAttributeType(t *testing.T) {
	c := &capture{}
	p := sdklog.NewLoggerProvider(sdklog.WithProcessor(c),
		sdklog.WithResource(resource.NewWithAttributes("https://opentelemetry.io/schemas/1.0.0", attribute.String("service.name", "x"))))
	defer p.Shutdown(context.Background())
	scoped := p.Logger("a", otellog.WithInstrumentationVersion("v1.2.3"), otellog.WithSchemaURL("https://s"),
		otellog.WithInstrumentationAttributes(attribute.Bool("scope.attr", true)))
	plain := p.Logger("b")
	values := []attribute.KeyValue{
		attribute.String("s", ""), attribute.String("s2", strings.Repeat("long ", 100)),
		attribute.Int64("i", 0), attribute.Int64("n", math.MinInt64), attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Float64("d", 0), attribute.Float64("e", -1.5e300),
		attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, -1, 1 << 50}),
		attribute.Float64Slice("fs", []float64{math.Inf(1), 0.25}), attribute.StringSlice("ss", []string{"", "a", "\xff"}),
		attribute.ByteSlice("by", []byte{0, 1, 2}),
		attribute.Slice("sl", attribute.StringValue("x"), attribute.IntValue(2), attribute.SliceValue(attribute.BoolValue(true))),
		attribute.Map("m", attribute.String("k", "v"), attribute.Map("inner", attribute.Int("z", 3))),
		{Key: "empty"},
	}
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled,
	}))
	bodies := []attribute.Value{
		attribute.StringValue("text"), {}, attribute.IntValue(7),
		attribute.MapValue(attribute.String("k", "v")), attribute.ByteSliceValue([]byte("raw")),
	}
	for i, body := range bodies {
		var r otellog.Record
		r.SetTimestamp(time.Unix(int64(i), 0))
		r.SetSeverity(otellog.Severity(i * 12)) // 0, 12, 24, 36 (out of range), 48
		r.SetSeverityText("S")
		r.SetEventName("ev")
		r.SetBody(body)
		r.AddAttributes(values...)
		if i%2 == 0 {
			scoped.Emit(ctx, r)
		} else {
			plain.Emit(context.Background(), r)
		}
	}
	// Before 1970 is 0, as the exporters write it.
	var early otellog.Record
	early.SetTimestamp(time.Unix(-10, 0))
	plain.Emit(context.Background(), early)

	req := checkRoundTrip(t, c.records)
	var scopes []string
	for _, rl := range req.ResourceLogs {
		if rl.SchemaUrl != "https://opentelemetry.io/schemas/1.0.0" || len(rl.Resource.GetAttributes()) != 1 {
			t.Errorf("resource logs %v; want the schema URL and service.name", rl)
		}
		for _, sl := range rl.ScopeLogs {
			scopes = append(scopes, sl.Scope.GetName()+" "+sl.Scope.GetVersion()+" "+sl.SchemaUrl)
			if sl.Scope.GetName() == "a" && (len(sl.Scope.Attributes) != 1 || !sl.Scope.Attributes[0].Value.GetBoolValue()) {
				t.Errorf("scope attributes = %v", sl.Scope.Attributes)
			}
		}
	}
	want := []string{"a v1.2.3 https://s", "b  ", "a v1.2.3 https://s", "b  ", "a v1.2.3 https://s", "b  "}
	if d := cmp.Diff(want, scopes); d != "" {
		t.Errorf("scope runs (-want +got):\n%s", d)
	}
}

// TestParseResponse: an ExportLogsServiceResponse's partial_success is
// read, fields it does not know are skipped, and a body that is not
// protobuf is errResponse.
func TestParseResponse(t *testing.T) {
	enc := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		body []byte
		want partialSuccess
		err  bool
	}{
		{name: "empty", body: nil},
		{name: "full success", body: enc(&collogsv1.ExportLogsServiceResponse{})},
		{name: "rejected", body: enc(&collogsv1.ExportLogsServiceResponse{PartialSuccess: &collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: 3, ErrorMessage: "too old"}}),
			want: partialSuccess{Rejected: 3, Message: "too old"}},
		{name: "warning", body: enc(&collogsv1.ExportLogsServiceResponse{PartialSuccess: &collogsv1.ExportLogsPartialSuccess{ErrorMessage: "slow down"}}),
			want: partialSuccess{Message: "slow down"}},
		{name: "unknown fields", body: append(enc(&collogsv1.ExportLogsServiceResponse{PartialSuccess: &collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: 1}}),
			0x10, 0x05, 0x1d, 1, 2, 3, 4, 0x21, 1, 2, 3, 4, 5, 6, 7, 8), want: partialSuccess{Rejected: 1}},
		{name: "truncated", body: []byte{0x0a, 0x05, 0x08}, err: true},
		{name: "text", body: []byte("<html>502</html>"), err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResponse(tc.body)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("parseResponse = %+v, %v; want %+v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestDetachedBodyReadsNothing: a transport that still holds a request
// body after its export ended cannot read the buffer being reused.
func TestDetachedBodyReadsNothing(t *testing.T) {
	g := &detachable{}
	r := g.reader([]byte("abcdef"))
	p := make([]byte, 3)
	if n, err := r.Read(p); n != 3 || err != nil || string(p) != "abc" {
		t.Fatalf("Read = %d %q, %v; want abc", n, p[:n], err)
	}
	g.detach()
	if n, err := r.Read(p); n != 0 || err != errDetached {
		t.Errorf("Read after detach = %d, %v; want 0, errDetached", n, err)
	}
}

// BenchmarkEncode is the sender's share of a batch of 256 audit
// records: the ExportLogsServiceRequest written into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	entries := make([]audit.Entry, 256)
	for i := range entries {
		entries[i] = entry(i)
	}
	recs := sdkRecords(b, entries...)
	var buf []byte
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		buf = appendRequest(buf[:0], recs)
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(buf))/256, "bytes/record")
}

// FuzzParseResponse: the collector's answer is untrusted input. Whatever
// it is, parseResponse returns; where the official protobuf decoder reads
// it as an ExportLogsServiceResponse, parseResponse reads the same
// partial_success from it, and where parseResponse refuses it, so does
// the official decoder.
func FuzzParseResponse(f *testing.F) {
	for _, m := range []*collogsv1.ExportLogsServiceResponse{
		{},
		{PartialSuccess: &collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: 3, ErrorMessage: "too old"}},
		{PartialSuccess: &collogsv1.ExportLogsPartialSuccess{RejectedLogRecords: -1}},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x05, 0x08})
	f.Add([]byte{0x0b, 0x0c}) // a group
	f.Add([]byte("<html>502</html>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseResponse(b)
		var m collogsv1.ExportLogsServiceResponse
		perr := proto.Unmarshal(b, &m)
		if perr == nil {
			want := partialSuccess{Rejected: m.GetPartialSuccess().GetRejectedLogRecords(), Message: m.GetPartialSuccess().GetErrorMessage()}
			if err != nil || got != want {
				t.Fatalf("parseResponse = %+v, %v; the protobuf decoder reads %+v", got, err, want)
			}
		}
		if err != nil && perr == nil {
			t.Fatalf("parseResponse refused what the protobuf decoder reads: %v", err)
		}
	})
}
