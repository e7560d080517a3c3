package auditexport

import (
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/ocfetch/ocfetch/audit"
)

// The OTLP/HTTP JSON encoding of ExportLogsServiceRequest
// (opentelemetry-proto, logs/v1 and common/v1, with the protobuf JSON
// mapping OTLP specifies: lowerCamelCase field names, 64-bit integers as
// decimal strings, enums as numbers). Written out here rather than
// generated: the official Go modules (the logs SDK with otlploghttp, or
// the proto types with the protobuf runtime) would push the release binary
// past its 16 MiB budget (docs/PERFORMANCE.md); the test decodes this
// encoding with the official proto types.

type exportRequest struct {
	ResourceLogs []resourceLogs `json:"resourceLogs"`
}

type resourceLogs struct {
	Resource  resource    `json:"resource"`
	ScopeLogs []scopeLogs `json:"scopeLogs"`
}

type resource struct {
	Attributes []kv `json:"attributes"`
}

type scopeLogs struct {
	Scope      scope       `json:"scope"`
	LogRecords []logRecord `json:"logRecords"`
}

type scope struct {
	Name string `json:"name"`
}

type logRecord struct {
	TimeUnixNano         string `json:"timeUnixNano"`
	ObservedTimeUnixNano string `json:"observedTimeUnixNano"`
	SeverityNumber       int    `json:"severityNumber"`
	SeverityText         string `json:"severityText"`
	EventName            string `json:"eventName"`
	Body                 value  `json:"body"`
	Attributes           []kv   `json:"attributes"`
}

type kv struct {
	Key   string `json:"key"`
	Value value  `json:"value"`
}

// value is an AnyValue holding a string or an int64 (as a string, per the
// JSON mapping).
type value struct {
	StringValue *string `json:"stringValue,omitempty"`
	IntValue    *string `json:"intValue,omitempty"`
}

func str(s string) value { return value{StringValue: &s} }
func i64(n int64) value  { s := strconv.FormatInt(n, 10); return value{IntValue: &s} }

// Severity numbers of the OTLP log data model.
const (
	severityInfo = 9
	severityWarn = 13
)

// ScopeName is the instrumentation scope of every record.
const ScopeName = "github.com/ocfetch/ocfetch/audit"

// EventName is every record's event name.
const EventName = "ocfetch.audit"

// resourceAttrs returns the resource attributes: service.name "ocfetch"
// and host.name unless given, then attrs, sorted by key.
func resourceAttrs(attrs map[string]string) []kv {
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
	out := make([]kv, 0, len(keys))
	for _, k := range keys {
		out = append(out, kv{k, str(m[k])})
	}
	return out
}

// record returns the attributes one audit line becomes: exactly the
// fields of the line (audit.Entry has no field for a URL, path, query,
// header or body), named ocfetch.* except where OpenTelemetry's semantic
// conventions have a name (server.address, server.port,
// http.response.status_code).
func record(e audit.Entry) []kv {
	a := []kv{
		{"ocfetch.execution_id", str(e.ExecutionID)},
		{"ocfetch.tool", str(e.Tool)},
		{"ocfetch.summary", str(e.Summary)},
		{"ocfetch.decision", str(string(e.Decision))},
		{"ocfetch.decided_by", str(string(e.DecidedBy))},
		{"ocfetch.outcome", str(e.Outcome)},
		{"ocfetch.bytes", i64(e.Bytes)},
		{"ocfetch.duration_ms", i64(e.DurationMS)},
	}
	if e.Rule != "" {
		a = append(a, kv{"ocfetch.rule", str(e.Rule)})
	}
	if r := e.Requirement; r != nil {
		a = append(a, kv{"ocfetch.capability", str(string(r.Kind))},
			kv{"server.address", str(r.Target.Host)}, kv{"server.port", i64(int64(r.Target.Port))})
	}
	if e.Status != 0 {
		a = append(a, kv{"http.response.status_code", i64(int64(e.Status))})
	}
	if e.BytesUp != 0 || e.BytesDown != 0 {
		a = append(a, kv{"ocfetch.bytes_up", i64(e.BytesUp)}, kv{"ocfetch.bytes_down", i64(e.BytesDown)})
	}
	return a
}

// encode is the request body of one batch.
func encode(res []kv, batch []audit.Entry, now time.Time) []byte {
	recs := make([]logRecord, 0, len(batch))
	observed := strconv.FormatInt(now.UnixNano(), 10)
	for _, e := range batch {
		sev, text := severityInfo, "INFO"
		if e.Decision != audit.DecisionAllow || e.Outcome != audit.OutcomeOK {
			sev, text = severityWarn, "WARN"
		}
		recs = append(recs, logRecord{
			TimeUnixNano:         strconv.FormatInt(e.Time.UnixNano(), 10),
			ObservedTimeUnixNano: observed,
			SeverityNumber:       sev,
			SeverityText:         text,
			EventName:            EventName,
			Body:                 str(e.Summary + " " + string(e.Decision) + " " + e.Outcome),
			Attributes:           record(e),
		})
	}
	b, err := json.Marshal(exportRequest{ResourceLogs: []resourceLogs{{
		Resource:  resource{Attributes: res},
		ScopeLogs: []scopeLogs{{Scope: scope{Name: ScopeName}, LogRecords: recs}},
	}}})
	if err != nil {
		// Every field is a string or a number: Marshal cannot fail.
		panic(err)
	}
	return b
}
