package auditexport

import (
	"errors"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP wire format of logs (opentelemetry-proto, logs/v1,
// common/v1, resource/v1, collector/logs/v1): the field numbers of the
// messages this file writes and reads. The tests decode what it writes
// with the official generated types, which keeps these numbers honest.
const (
	requestResourceLogs = 1 // ExportLogsServiceRequest.resource_logs

	resourceLogsResource  = 1 // ResourceLogs.resource
	resourceLogsScopeLogs = 2 // ResourceLogs.scope_logs
	resourceLogsSchemaURL = 3 // ResourceLogs.schema_url

	resourceAttributes = 1 // Resource.attributes

	scopeLogsScope      = 1 // ScopeLogs.scope
	scopeLogsLogRecords = 2 // ScopeLogs.log_records
	scopeLogsSchemaURL  = 3 // ScopeLogs.schema_url

	scopeName       = 1 // InstrumentationScope.name
	scopeVersion    = 2 // InstrumentationScope.version
	scopeAttributes = 3 // InstrumentationScope.attributes

	recordTime           = 1  // LogRecord.time_unix_nano (fixed64)
	recordSeverityNumber = 2  // LogRecord.severity_number
	recordSeverityText   = 3  // LogRecord.severity_text
	recordBody           = 5  // LogRecord.body
	recordAttributes     = 6  // LogRecord.attributes
	recordDropped        = 7  // LogRecord.dropped_attributes_count
	recordFlags          = 8  // LogRecord.flags (fixed32)
	recordTraceID        = 9  // LogRecord.trace_id
	recordSpanID         = 10 // LogRecord.span_id
	recordObservedTime   = 11 // LogRecord.observed_time_unix_nano (fixed64)
	recordEventName      = 12 // LogRecord.event_name

	keyValueKey   = 1 // KeyValue.key
	keyValueValue = 2 // KeyValue.value

	anyString = 1 // AnyValue.string_value
	anyBool   = 2 // AnyValue.bool_value
	anyInt    = 3 // AnyValue.int_value
	anyDouble = 4 // AnyValue.double_value
	anyArray  = 5 // AnyValue.array_value
	anyKVList = 6 // AnyValue.kvlist_value
	anyBytes  = 7 // AnyValue.bytes_value

	listValues = 1 // ArrayValue.values, KeyValueList.values

	responsePartialSuccess = 1 // ExportLogsServiceResponse.partial_success
	partialRejected        = 1 // ExportLogsPartialSuccess.rejected_log_records
	partialMessage         = 2 // ExportLogsPartialSuccess.error_message
)

// appendResourceLogs appends to b one ResourceLogs of an
// ExportLogsServiceRequest (its field resource_logs): res, and one
// ScopeLogs of scope whose log_records are records, LogRecord fields as
// appendRecord writes them. A batch of one resource and scope is a whole
// request. A record's fields are written as the OpenTelemetry Go OTLP
// exporters write them: every attribute value of every type, an empty
// body as an empty AnyValue, a timestamp before 1970 as 0, a severity
// outside 1–24 as unspecified.
func appendResourceLogs(b []byte, res *resource.Resource, scope instrumentation.Scope, records []byte) []byte {
	var rl, sl int
	b, rl = openMessage(b, requestResourceLogs)
	if res != nil && res.Len() > 0 {
		b = appendResource(b, res)
	}
	b, sl = openMessage(b, resourceLogsScopeLogs)
	if scope != (instrumentation.Scope{}) {
		b = appendScope(b, scope)
	}
	b = append(b, records...)
	if scope.SchemaURL != "" {
		b = appendString(b, scopeLogsSchemaURL, scope.SchemaURL)
	}
	b = closeMessage(b, sl)
	if res != nil && res.SchemaURL() != "" {
		b = appendString(b, resourceLogsSchemaURL, res.SchemaURL())
	}
	return closeMessage(b, rl)
}

func appendResource(b []byte, res *resource.Resource) []byte {
	b, m := openMessage(b, resourceLogsResource)
	for it := res.Iter(); it.Next(); {
		b = appendKeyValue(b, resourceAttributes, it.Attribute())
	}
	return closeMessage(b, m)
}

func appendScope(b []byte, s instrumentation.Scope) []byte {
	b, m := openMessage(b, scopeLogsScope)
	b = appendString(b, scopeName, s.Name)
	b = appendString(b, scopeVersion, s.Version)
	for it := s.Attributes.Iter(); it.Next(); {
		b = appendKeyValue(b, scopeAttributes, it.Attribute())
	}
	return closeMessage(b, m)
}

// appendRecord appends r as a LogRecord, field log_records of a
// ScopeLogs.
func appendRecord(b []byte, r *sdklog.Record) []byte {
	b, m := openMessage(b, scopeLogsLogRecords)
	b = appendFixed64(b, recordTime, unixNano(r.Timestamp()))
	if s := r.Severity(); s >= 1 && s <= 24 {
		b = protowire.AppendTag(b, recordSeverityNumber, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s))
	}
	b = appendString(b, recordSeverityText, r.SeverityText())
	b, body := openMessage(b, recordBody)
	b = appendValue(b, r.Body())
	b = closeMessage(b, body)
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		b = appendKeyValue(b, recordAttributes, kv)
		return true
	})
	if n := r.DroppedAttributes(); n > 0 {
		b = protowire.AppendTag(b, recordDropped, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(min(n, math.MaxUint32)))
	}
	if f := r.TraceFlags(); f != 0 {
		b = protowire.AppendTag(b, recordFlags, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, uint32(f))
	}
	if id := r.TraceID(); id.IsValid() {
		b = protowire.AppendTag(b, recordTraceID, protowire.BytesType)
		b = protowire.AppendBytes(b, id[:])
	}
	if id := r.SpanID(); id.IsValid() {
		b = protowire.AppendTag(b, recordSpanID, protowire.BytesType)
		b = protowire.AppendBytes(b, id[:])
	}
	b = appendFixed64(b, recordObservedTime, unixNano(r.ObservedTimestamp()))
	b = appendString(b, recordEventName, r.EventName())
	return closeMessage(b, m)
}

// appendKeyValue appends kv as a KeyValue, field num of its message.
func appendKeyValue(b []byte, num protowire.Number, kv attribute.KeyValue) []byte {
	b, m := openMessage(b, num)
	b = appendString(b, keyValueKey, string(kv.Key))
	b, v := openMessage(b, keyValueValue)
	b = appendValue(b, kv.Value)
	b = closeMessage(b, v)
	return closeMessage(b, m)
}

// appendValue appends the fields of the AnyValue that v is. A oneof
// field is written even when it holds its type's zero value: that is how
// a decoder tells the empty string from no value.
func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.STRING:
		return appendStringValue(b, v.AsString())
	case attribute.INT64:
		return appendInt(b, v.AsInt64())
	case attribute.BOOL:
		return appendBool(b, v.AsBool())
	case attribute.FLOAT64:
		return appendDouble(b, v.AsFloat64())
	case attribute.BYTESLICE:
		return protowire.AppendBytes(protowire.AppendTag(b, anyBytes, protowire.BytesType), v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), appendBool)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), appendInt)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), appendDouble)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), appendStringValue)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), appendValue)
	case attribute.MAP:
		b, m := openMessage(b, anyKVList)
		for _, kv := range v.AsMap() {
			b = appendKeyValue(b, listValues, kv)
		}
		return closeMessage(b, m)
	case attribute.EMPTY:
		return b
	default:
		return appendStringValue(b, "INVALID")
	}
}

// appendArray appends the AnyValue's array_value of xs, each element
// an AnyValue whose fields appendElem writes.
func appendArray[T any](b []byte, xs []T, appendElem func([]byte, T) []byte) []byte {
	b, a := openMessage(b, anyArray)
	for _, x := range xs {
		var e int
		b, e = openMessage(b, listValues)
		b = closeMessage(appendElem(b, x), e)
	}
	return closeMessage(b, a)
}

func appendInt(b []byte, x int64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, anyInt, protowire.VarintType), uint64(x))
}

func appendBool(b []byte, x bool) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, anyBool, protowire.VarintType), protowire.EncodeBool(x))
}

func appendDouble(b []byte, x float64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(b, anyDouble, protowire.Fixed64Type), math.Float64bits(x))
}

// appendStringValue appends an AnyValue's string_value, written even
// when empty.
func appendStringValue(b []byte, s string) []byte {
	return appendUTF8(protowire.AppendTag(b, anyString, protowire.BytesType), s)
}

// appendString appends a string field, omitted when empty (proto3).
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	return appendUTF8(protowire.AppendTag(b, num, protowire.BytesType), s)
}

// appendUTF8 appends s as a protobuf string: length, then the bytes,
// invalid UTF-8 replaced by U+FFFD. A proto3 string must be UTF-8 (the
// official decoders refuse the whole request otherwise), so one bad
// string would cost its whole batch.
func appendUTF8(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return protowire.AppendString(b, s)
}

// appendFixed64 appends a fixed64 field, omitted when 0 (proto3).
func appendFixed64(b []byte, num protowire.Number, x uint64) []byte {
	if x == 0 {
		return b
	}
	return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), x)
}

// unixNano is t in nanoseconds since 1970, and 0 for the zero time or a
// time before 1970 (the exporters' rule: the field is unsigned).
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	n := t.UnixNano()
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// openMessage appends the tag of a message field and a one-byte length
// to fill in; the message's fields follow, then closeMessage. It returns
// where the message's fields start.
func openMessage(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// closeMessage writes the length of the message whose fields start at
// start, moving them up when the length needs more than one byte. The
// encoding stays the canonical (shortest) one, in one pass.
func closeMessage(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	k := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, k-1)...)
	copy(b[start-1+k:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// errResponse is a 2xx answer whose body is not an
// ExportLogsServiceResponse.
var errResponse = errors.New("the collector's answer is not an ExportLogsServiceResponse")

// partialSuccess is an ExportLogsServiceResponse's partial_success: how
// many records of the request the collector rejected, and whether it
// said why (a message with nothing rejected is a warning).
type partialSuccess struct {
	Rejected int64
	Message  string
}

// parseResponse reads an ExportLogsServiceResponse (protobuf), skipping
// fields it does not know. An empty body is full success.
func parseResponse(b []byte) (partialSuccess, error) {
	var ps partialSuccess
	err := walkFields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != responsePartialSuccess || typ != protowire.BytesType {
			return nil
		}
		return walkFields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
			switch {
			case num == partialRejected && typ == protowire.VarintType:
				ps.Rejected = int64(x)
			case num == partialMessage && typ == protowire.BytesType:
				ps.Message = string(v)
			}
			return nil
		})
	})
	if err != nil {
		return partialSuccess{}, err
	}
	return ps, nil
}

// walkFields calls f with each field of the message b: its number,
// wire type, and its bytes (length-delimited) or integer (varint,
// fixed32, fixed64).
func walkFields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errResponse
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x32 uint32
			x32, n = protowire.ConsumeFixed32(b)
			x = uint64(x32)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errResponse
		}
		b = b[n:]
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}
