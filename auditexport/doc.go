// Package auditexport copies ocfetch's audit lines to an organisation's
// OpenTelemetry collector: each line an OTLP log record (OTLP/HTTP,
// protobuf encoding, POST /v1/logs), batched, from a bounded queue, by
// the official OpenTelemetry Go logs SDK (go.opentelemetry.io/otel/sdk/log:
// a LoggerProvider with a BatchProcessor) in front of an exporter of this
// package's: it writes each batch as an ExportLogsServiceRequest itself
// (protowire, no generated protobuf code, no gRPC in the binary) into a
// reused buffer, POSTs it with a bounded http.Client, and reads the
// answer by the OTLP/HTTP rules (2xx is success less the records its
// partial_success rejects; any other status fails the batch, not
// retried).
// Exporting never blocks a call and never fails one: a full queue drops
// the record and counts it ([Exporter.Stats]); the workspace's audit.jsonl
// stays the record of truth.
//
// A record holds exactly the fields of the audit line (tool, "<METHOD>
// <host>", decision, rule, outcome, status, bytes, duration): the line has
// no field for a URL, path, query, header or body, and neither has the
// record.
//
//	x, err := auditexport.New(&auditexport.Options{Endpoint: "http://127.0.0.1:4318"})
//	if err != nil { return err }
//	defer x.Shutdown(ctx)
//	log := audit.Open(ws).WithSink(x) // every Append is also exported
//
// The endpoint comes from the managed policy ("audit_export") or the
// user's os.UserConfigDir()/ocfetch/audit_export.json ([LoadConfig]).
package auditexport
