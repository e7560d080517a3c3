// Package auditexport copies ocfetch's audit lines to an organisation's
// OpenTelemetry collector: each line an OTLP log record (OTLP/HTTP,
// protobuf encoding, POST /v1/logs), batched, from a bounded queue.
// Records are emitted through the official OpenTelemetry Go logs SDK
// (go.opentelemetry.io/otel/sdk/log: a LoggerProvider and its Logger,
// which build the sdklog.Record) to a processor of this package's (the
// batcher, an sdklog.Processor, the SDK's extension interface) in place of
// the SDK's BatchProcessor: for issue 24's CPU target (the export adds at
// most 5 % to a call of ~200 µs), it encodes each record as it is emitted
// straight into a batch buffer bounded in records and bytes, with no
// clone of the record and no queue of records, and one goroutine POSTs
// each batch as an ExportLogsServiceRequest written with protowire (no
// generated protobuf code, no gRPC in the binary) from a reused buffer,
// reading the answer by the OTLP/HTTP rules (2xx is success less the
// records its partial_success rejects; any other status fails the batch,
// not retried). The SDK's own Emit (its copy of the record's attributes)
// stays the largest share of a line's CPU.
// Exporting never blocks a call and never fails one: a full queue drops
// the new record and counts it ([Exporter.Stats]); the workspace's
// audit.jsonl stays the record of truth.
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
