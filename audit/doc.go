// Package audit is the append-only audit log, <root>/.oc_chat/audit.jsonl:
// one JSON object a line, one line per tool call or proxied connection,
// saying what was asked ("GET example.com"), how it was decided and what
// came of it.
//
// Nothing secret is logged: an [Entry] has no field for a URL, path, query,
// header or body, and [Entry.Validate], which [Log.Append] enforces, refuses
// a summary or rule that looks like it carries one.
//
// [Log.Append] writes each line with a single write(2) to a file opened
// O_APPEND, so lines from concurrent goroutines and processes never
// interleave; [Read] returns the last N lines without reading the whole
// log, [Scan] walks every line holding one at a time, and both name any
// malformed line.
//
//	log := audit.Open(ws)
//	err := log.Append(audit.Entry{
//		ExecutionID: id, Tool: "fetch", Summary: "GET example.com",
//		Requirement: &req, Decision: audit.DecisionAllow, DecidedBy: audit.ByRule,
//		Rule: "allow example.com:443", Outcome: audit.OutcomeOK, Status: 200,
//		Bytes: n, DurationMS: d.Milliseconds(),
//	})
//	entries, err := audit.Read(ws, 20) // the last 20 lines
package audit
