package proxy

import (
	"context"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/policy"
)

// AuditTool is the Tool field of the proxy's audit lines.
const AuditTool = "proxy"

// record writes the audit line of one tunnel or request and logs the one
// canonical diagnostic line of its decision. The summary is
// "CONNECT example.com" or "GET example.com": never a path or query.
//
// It runs once per exchange: a refusal records its exchange before the
// answer goes out ([Server.refuseHTTP]), and the record deferred for
// every exchange then does nothing.
func (s *Server) record(x *exchange) {
	if x.recorded {
		return
	}
	x.recorded = true
	outcome := audit.OutcomeOK
	if x.outcome != "" {
		outcome = string(x.outcome)
	}
	decidedBy := x.v.decidedBy
	if decidedBy == "" {
		decidedBy = audit.ByPolicy
	}
	decision := policy.AuditDecision(x.admitted, decidedBy)
	dur := s.now().Sub(x.start)
	s.log.Log(context.Background(), diag.L2, "proxy exchange",
		"summary", x.req.summary(), "decision", decision, "outcome", outcome,
		"status", x.status, "up", x.up, "down", x.down, "ms", dur.Milliseconds())
	s.metrics.observe(x.req.method, outcome, outcome != audit.OutcomeOK, x.up, x.down, dur)
	defer s.notifyRefused(x)
	if s.audit == nil {
		return
	}
	e := audit.Entry{
		Time:        x.start.UTC(),
		ExecutionID: x.id.String(),
		Tool:        AuditTool,
		Summary:     x.req.summary(),
		Decision:    decision,
		DecidedBy:   decidedBy,
		Rule:        x.v.rule,
		Outcome:     outcome,
		Status:      x.status,
		Bytes:       x.down,
		BytesUp:     x.up,
		BytesDown:   x.down,
		DurationMS:  dur.Milliseconds(),
		RunID:       s.runID,
		TrustedBy:   x.v.trustedBy,
	}
	if x.req.target.Host() != "" {
		req := capability.Network(x.req.target)
		e.Requirement = &req
	}
	if err := s.audit.Append(e); err != nil {
		s.log.Log(context.Background(), diag.L1, "audit line not written", "err", err)
	}
}

// notifyRefused hands a refusal by policy to Options.Refused.
func (s *Server) notifyRefused(x *exchange) {
	if s.refused == nil || x.refused == nil || !x.refused.Code.Policy() {
		return
	}
	s.refused(Refusal{Method: x.req.method, Target: x.req.target, File: x.v.file, Err: x.refused})
}
