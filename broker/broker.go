package broker

import (
	"cmp"
	"context"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/trust"
)

// Broker runs tool calls for one workspace's scope. The zero value is not
// usable: Scope must be set.
type Broker struct {
	// Scope is the workspace (where rules are read and saved and the
	// audit log lives), its profile and upstream proxy and where they came
	// from, and the layers around it: scope.Open builds it once per
	// workspace, and every decision is asked with Scope.Args.
	Scope *scope.Scope
	// Approver decides uncovered requirements. If nil, NonInteractive.
	Approver Approver
	// Audit receives one line per call. If nil, nothing is recorded.
	Audit *audit.Log
	// Logger receives diagnostics (domain BROKER). If nil, they are dropped.
	Logger *slog.Logger
	// ForModel makes not_approved hints address a model (the MCP server):
	// "ask the user to run: ocfetch rules allow …", never the command alone.
	ForModel bool
	// UnansweredHint is added to the not_approved hint when nobody could
	// be asked, for what only this front end offers (the CLI: "or pass
	// --yes to approve this call once"). Empty adds nothing.
	UnansweredHint string
	// Now returns the current time. If nil, time.Now.
	Now func() time.Time
}

// decision is how a call's requirements were settled, for the audit line.
type decision struct {
	allowed   bool
	decidedBy audit.DecidedBy
	rule      string
	// trustedBy: the decision's policy.Decision.TrustedBy (audit
	// trusted_by).
	trustedBy string
	err       *refusal.Error
	// notSaved: an "always" answer's rule was not saved, or saved where
	// it does not count yet; the call went ahead.
	notSaved *refusal.Error
	// admitted is what the transport may dial for each requirement (the
	// policy.Decision's Target and LoopbackPort), bound to the run.
	admitted []tool.Admission
	// approved are the targets the user approved for this call (an
	// answer once, for the session or always), not a saved rule: the
	// only ones a redirect hop's Ask may admit (see [Broker.again]).
	approved []capability.Target
}

// Prepared is one call of a tool, prepared once: PrepareCall and its
// audit summary (from the prepared call, else AuditSummary) are not run
// again however many rounds the call takes. The MCP server keeps one
// across the round trip of a question (the multi round-trip protocol), so
// that the answered call is the call that was asked about. A Prepared is
// used by one goroutine at a time.
type Prepared struct {
	t        tool.Tool
	args     string
	id       uuid.UUID
	name     string
	summary  string
	req      tool.Request
	artifact tool.PreparedArtifact
	err      error // PrepareCall's refusal
	// decided are [Broker.PendingFor]'s decisions, by requirement, for
	// the next Run (nil: decide it then). When Pending asked, only the
	// asked requirement's Ask is kept: Run takes the answer from the
	// Approver and decides it again after the answer (seed 000: the files
	// are read again), without deciding it a first time; the others are
	// decided in that round.
	decided []*policy.Decision
}

// Prepare prepares one call of t: PrepareCall once, and the call's audit
// summary. A refused call is prepared too: its Run refuses it and writes
// its audit line.
func (b *Broker) Prepare(ctx context.Context, t tool.Tool, argsJSON string) *Prepared {
	p := &Prepared{t: t, args: argsJSON, id: uuid.New(), name: tool.NameOf(ctx, t)}
	p.req, p.artifact, p.err = t.PrepareCall(ctx, p.id, argsJSON)
	if p.summary = p.req.Summary; p.err != nil || p.summary == "" {
		p.summary = t.AuditSummary(argsJSON)
	}
	return p
}

// Requirements are what the prepared call needs (none when it was
// refused).
func (p *Prepared) Requirements() []capability.Requirement {
	if p.err != nil {
		return nil
	}
	return p.req.Requirements
}

// Call prepares, decides, runs and audits one call of t ([Broker.Prepare],
// then [Broker.Run]). It never returns nil and never a Go error: every
// refusal and failure is an error result with a reason code.
//
// Before anything is decided or sent, the audit log must be writable
// ([audit.Log.Preflight]): otherwise the call is refused with
// audit_unavailable naming the file. A line that fails after the call is
// reported in the result's AuditFailure.
func (b *Broker) Call(ctx context.Context, t tool.Tool, argsJSON string) *tool.Result {
	// One check of every file per call: the preflight, each decision
	// (redirect hops too) and the fetch share it (securefile.Call).
	ctx, _ = securefile.EnsureCall(ctx)
	return b.Run(ctx, b.Prepare(ctx, t, argsJSON))
}

// Run decides, runs and audits the prepared call p, as [Broker.Call]
// does; the decisions [Broker.Pending] made for p in this round are used,
// not asked again, and a requirement it put to the user is answered by the
// Approver and decided again after the answer.
func (b *Broker) Run(ctx context.Context, p *Prepared) *tool.Result {
	start := b.now()
	ctx, _ = securefile.EnsureCall(ctx)
	id, name, summary, t, argsJSON := p.id, p.name, p.summary, p.t, p.args
	log := b.callLogger(ctx, id, summary)
	if p.err != nil {
		res := tool.ErrorResult(p.err)
		log.Log(ctx, diag.L2, "call refused at prepare", "reason", res.Reason)
		b.audit(ctx, log, id, name, summary, nil, decision{decidedBy: audit.ByPolicy}, res, start)
		return res
	}
	req := p.req
	if err := b.Audit.PreflightContext(ctx); err != nil {
		log.Log(ctx, diag.L1, "audit log unavailable; call refused", "err", err)
		return tool.ErrorResult(err)
	}
	var primary *capability.Requirement
	if len(req.Requirements) > 0 {
		primary = &req.Requirements[0]
	}
	d := b.decide(ctx, log, name, summary, p)
	if !d.allowed {
		res := tool.ErrorResult(d.err)
		b.audit(ctx, log, id, name, summary, primary, d, res, start)
		return res
	}
	runCtx := tool.WithAdmissions(tool.WithArtifact(ctx, id, p.artifact), d.admitted, b.again(d.approved))
	res, err := t.InvokableRun(runCtx, argsJSON)
	if err != nil {
		res = tool.ErrorResult(err)
	}
	if res == nil {
		res = tool.ErrorResult(refusal.New(refusal.InternalError, name+" returned no result"))
	}
	res.RuleNotSaved = d.notSaved
	if b.ForModel {
		res.RuleNotSaved = d.notSaved.ForModel()
	}
	b.audit(ctx, log, id, name, summary, primary, d, res, start)
	return res
}

// Pending reports whether a call of t with argsJSON would ask the user,
// and what ([Broker.Prepare], then [Broker.PendingFor]).
func (b *Broker) Pending(ctx context.Context, t tool.Tool, argsJSON string) (ApprovalRequest, bool) {
	return b.PendingFor(ctx, b.Prepare(ctx, t, argsJSON))
}

// PendingFor reports whether the prepared call p would ask the user, and
// what: the request an Approver would be shown for its first requirement
// that policy.Decide answers Ask, when no requirement before it is denied.
// It runs, records and saves nothing. The MCP server uses it to know
// whether to ask before the call. Its decisions are kept in p for the
// [Broker.Run] of this round; when it asks, p keeps only which
// requirement was asked, for the Run that carries the answer.
func (b *Broker) PendingFor(ctx context.Context, p *Prepared) (ApprovalRequest, bool) {
	reqs := p.Requirements()
	p.decided = make([]*policy.Decision, len(reqs))
	for i, need := range reqs {
		d := policy.Decide(ctx, b.args(need))
		switch d.Result {
		case policy.Ask:
			clear(p.decided) // the answer comes in a later round: decide the others then
			p.decided[i] = &d
			return ApprovalRequest{Tool: p.name, Summary: p.summary, Requirement: need, Profile: b.Scope.Profile}, true
		case policy.Deny:
			p.decided[i] = &d
			return ApprovalRequest{}, false
		}
		p.decided[i] = &d
	}
	return ApprovalRequest{}, false
}

func (b *Broker) args(need capability.Requirement) policy.Args { return b.argsFor(need.Origin()) }

func (b *Broker) argsFor(o capability.Origin) policy.Args {
	a := b.Scope.Args(policy.FrontFetchTool, o)
	a.ForModel = b.ForModel
	a.Logger = b.Logger
	return a
}

// ensureWorkspace creates .oc_chat/ if it is missing and then trusts the
// workspace (trust.Store.EnsureWorkspace): what ocfetch itself created
// holds nothing anyone else shipped. It returns the store and whether this
// call created .oc_chat/; a failure is logged and leaves the workspace as it
// was (untrusted unless it was trusted before).
func (b *Broker) ensureWorkspace(ctx context.Context, log *slog.Logger, how string) (*trust.Store, bool, error) {
	s, err := b.Scope.Layers.TrustStore()
	if err != nil {
		log.Log(ctx, diag.L1, "trust store unavailable", "err", err)
		return nil, false, err
	}
	created, err := s.EnsureWorkspace(ctx, b.Scope.Workspace, how)
	if err != nil {
		log.Log(ctx, diag.L1, "could not create and trust the workspace", "err", err)
		return s, false, err
	}
	if created {
		log.Log(ctx, diag.L2, "created .oc_chat and trusted the workspace", "root", b.Scope.Workspace.Root)
	}
	return s, created, nil
}

// decide settles every requirement of p with policy.Decide, asking the
// Approver where it answers Ask; the first refusal wins. What
// [Broker.PendingFor] decided for p is used as decided, once.
func (b *Broker) decide(ctx context.Context, log *slog.Logger, name, summary string, p *Prepared) decision {
	d := decision{allowed: true, decidedBy: audit.ByPolicy}
	var notSaved *refusal.Error
	var admitted []tool.Admission
	var approved []capability.Target
	trustedBy := ""
	decided := p.decided
	p.decided = nil // used once
	for i, need := range p.req.Requirements {
		var pd *policy.Decision
		if i < len(decided) {
			pd = decided[i]
		}
		d = b.decideOne(ctx, log, name, summary, need, pd)
		if !d.allowed {
			return d
		}
		trustedBy = cmp.Or(d.trustedBy, trustedBy)
		if d.notSaved != nil {
			notSaved = d.notSaved
		}
		if admitted == nil {
			admitted = d.admitted // one requirement (a fetch): its own slice, not a copy
		} else {
			admitted = append(admitted, d.admitted...)
		}
		approved = append(approved, d.approved...)
	}
	d.notSaved, d.admitted, d.approved, d.trustedBy = notSaved, admitted, approved, trustedBy
	return d
}

// admission is what pd lets the transport dial.
func admission(pd policy.Decision) []tool.Admission {
	return []tool.Admission{{Target: pd.Target, LoopbackPort: pd.LoopbackPort}}
}

// again is the run's [tool.Redecide]: a later origin of the call (a
// redirect hop) is a new question to policy.Decide, on the files as they
// are now: the hop is decided in a securefile.Call of its own, not on the
// snapshot the call's first decision took, so that a port revoked, a deny
// rule added or the trust revoked while the chain runs stops it at the
// next hop (seed 000; docs/DESIGN.md: each hop is a new call). An allow
// admits it; a deny refuses it; an ask admits it only for a target the
// user approved for this call (the hop stays on it), as the answer covered
// this call. A target the call's first decision admitted by a saved rule
// was not approved by the user: if that rule is gone when the hop is
// decided, the Ask refuses the hop (not_approved), as a new call would be
// refused without asking.
func (b *Broker) again(approved []capability.Target) tool.Redecide {
	return func(ctx context.Context, o capability.Origin) (tool.Admission, error) {
		pd := policy.Decide(securefile.WithCall(ctx, securefile.NewCall()), b.argsFor(o))
		switch pd.Result {
		case policy.Deny:
			return tool.Admission{}, pd.Refusal
		case policy.Ask:
			if !slices.Contains(approved, o.Target) {
				return tool.Admission{}, pd.Refusal
			}
		}
		return tool.Admission{Target: pd.Target, LoopbackPort: pd.LoopbackPort}, nil
	}
}

// noteOf is the decision's note as a message suffix ("" when none).
func noteOf(d policy.Decision) string {
	if d.Note == "" {
		return ""
	}
	return "; " + d.Note
}

// decideOne settles need: decided, when not nil, is the decision already
// made for it ([Broker.PendingFor]: in this round, or the Ask of an earlier
// round, whose answer the Approver gives and which is decided again after
// the answer).
func (b *Broker) decideOne(ctx context.Context, log *slog.Logger, name, summary string, need capability.Requirement, decided *policy.Decision) decision {
	var pd policy.Decision
	if decided != nil {
		pd = *decided
	} else {
		pd = policy.Decide(ctx, b.args(need))
	}
	if log.Enabled(ctx, diag.L2) { // the decision's words are built only to be shown
		log.Log(ctx, diag.L2, "decided", "target", need.Target.String(), "decision", pd.String(), "earlier", decided != nil)
	}
	switch pd.Result {
	case policy.Allow:
		return decision{allowed: true, decidedBy: pd.DecidedBy, rule: pd.Rule, trustedBy: pd.TrustedBy, admitted: admission(pd)}
	case policy.Deny:
		return decision{decidedBy: pd.DecidedBy, rule: pd.Rule, trustedBy: pd.TrustedBy, err: pd.Refusal}
	}
	target := need.Target.String()
	allowHint := policy.AllowHint(need.Target, b.ForModel)
	approver := b.Approver
	if approver == nil {
		approver = NonInteractive()
	}
	answer, err := approver.Approve(ctx, ApprovalRequest{Tool: name, Summary: summary, Requirement: need, Profile: b.Scope.Profile})
	if err != nil {
		log.Log(ctx, diag.L1, "approver failed", "target", target, "err", err)
		answer = Unanswered
	}
	log.Log(ctx, diag.L2, "approval answered", "target", target, "answer", answer.String())
	var again policy.Decision
	if answer == Once || answer == Session || answer == Always {
		// The user may have taken a while: the files are read again
		// before anything is saved or sent (seed 000: a port revoked, a
		// deny rule added or the trust revoked while asking takes effect
		// now). Ask again is what the answer approves; a deny refuses.
		// Every later step of the call (the run, its redirects) sees the
		// files as they are now, too.
		securefile.CallFrom(ctx).Renew()
		if again = policy.Decide(ctx, b.args(need)); again.Result == policy.Deny {
			log.Log(ctx, diag.L2, "decided again after the answer", "target", target, "decision", again.String())
			return decision{decidedBy: again.DecidedBy, rule: again.Rule, trustedBy: again.TrustedBy, err: again.Refusal}
		}
	}
	d := b.answered(ctx, log, need, answer, allowHint, noteOf(pd))
	d.trustedBy = cmp.Or(again.TrustedBy, pd.TrustedBy)
	if d.allowed {
		d.admitted = admission(again)
		d.approved = []capability.Target{need.Target} // the user's answer covers this call
	}
	return d
}

// answered is the decision an approver's answer makes.
// note is the decision's note as a message suffix (noteOf).
func (b *Broker) answered(ctx context.Context, log *slog.Logger, need capability.Requirement, answer Answer, allowHint, note string) decision {
	target := need.Target.String()
	switch answer {
	case Once:
		return decision{allowed: true, decidedBy: audit.ByOnce}
	case Session:
		return decision{allowed: true, decidedBy: audit.BySession}
	case Always:
		rule := rules.Rule{
			Capability: need.Kind,
			Target:     rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: need.Target.Host(), Port: need.Target.Port()},
			Decision:   rules.Allow,
		}
		ruleText := rule.String()
		// A workspace whose .oc_chat/ this answer creates is trusted then,
		// before the rule is saved in it.
		trusted, terr := false, error(nil)
		if s, created, err := b.ensureWorkspace(ctx, log, "an \"always\" answer"); err != nil {
			terr = err
		} else if created {
			trusted = true
		} else {
			trusted, terr = s.Trusted(b.Scope.Workspace.Root)
		}
		if err := rules.Add(ctx, b.Scope.Workspace, rule); err != nil {
			// The user approved this call; only the saving failed. Run it
			// once, and tell the user (the result's RuleNotSaved).
			log.Log(ctx, diag.L1, "approved always, but the rule was not saved", "target", target, "err", err)
			r, ok := refusal.As(err)
			if !ok {
				r = refusal.New(refusal.RulesInvalid, "the rules file cannot be written").Wrap(err)
			}
			return decision{allowed: true, decidedBy: audit.ByOnce, notSaved: refusal.Newf(r.Code,
				"approved once: the rule %q was not saved: %s", ruleText, r.Message).WithHints(r.Hint, r.ModelHint)}
		}
		diag.RuleSaved(ctx, b.Logger, string(rule.Decision), rule.Target.Host, rule.Target.Port, b.Scope.Workspace.RulesPath())
		d := decision{allowed: true, decidedBy: audit.ByAlways, rule: ruleText}
		if !trusted {
			// Saved, but a rule of an untrusted workspace grants nothing:
			// the next call would be refused workspace_untrusted.
			msg := "the rule %q was saved in %s, but the workspace is not trusted, so it counts only once you trust it"
			if terr != nil {
				msg += " (the trust store cannot be read)"
			}
			d.notSaved = refusal.Newf(refusal.WorkspaceUntrusted, msg, ruleText, b.Scope.Workspace.RulesPath()).
				WithHints("run `"+trust.Command(b.Scope.Workspace.Root)+"` if you trust this workspace's files",
					refusal.AskUserToRun(trust.Command(b.Scope.Workspace.Root))+" if they trust this workspace's files")
		}
		return d
	case Deny:
		denyHint := allowHint
		if b.ForModel {
			// The user said no: a model must not be told to go and ask
			// for a rule.
			denyHint = "the user declined this fetch; do not retry it or ask for a rule unless the user brings it up"
		}
		return decision{decidedBy: audit.ByDenied, err: refusal.Newf(refusal.NotApproved,
			"%s was denied by the user%s", target, note).WithHint(denyHint)}
	case NoChoice:
		hint := "choose an answer (once, for this session, always or deny) when asked again, or " + allowHint
		if b.ForModel {
			hint = "the question reached the client but no answer was chosen; if you retry, ask the user to choose one (once, for this session, always or deny), or to run: " + policy.AllowCommand(need.Target)
		}
		return decision{decidedBy: audit.ByUnanswered, err: refusal.Newf(refusal.NotApproved,
			"%s was not approved: the client accepted the question without choosing an answer%s", target, note).WithHint(hint)}
	}
	if b.UnansweredHint != "" {
		allowHint += " (" + b.UnansweredHint + ")"
	}
	return decision{decidedBy: audit.ByUnanswered, err: refusal.Newf(refusal.NotApproved,
		"%s is not covered by a saved rule and nobody could be asked%s", target, note).WithHint(allowHint)}
}

func (b *Broker) audit(ctx context.Context, log *slog.Logger, id uuid.UUID, name, summary string, req *capability.Requirement, d decision, res *tool.Result, start time.Time) {
	if b.Audit == nil {
		return
	}
	e := audit.Entry{
		Time:        start.UTC(),
		ExecutionID: id.String(),
		Tool:        name,
		Summary:     summary,
		Requirement: req,
		DecidedBy:   d.decidedBy,
		Rule:        d.rule,
		TrustedBy:   d.trustedBy,
		Status:      res.Status,
		Bytes:       res.Bytes,
		DurationMS:  b.now().Sub(start).Milliseconds(),
	}
	e.Decision = policy.AuditDecision(d.allowed, d.decidedBy)
	e.Outcome = audit.OutcomeOK
	if res.IsError {
		e.Outcome = string(res.Reason)
	}
	if err := b.Audit.Append(e); err != nil {
		log.Log(ctx, diag.L1, "audit line not written", "err", err)
		res.AuditFailure = b.Audit.Unavailable(err)
	}
}

func (b *Broker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// discard is the logger of a Broker without one (slog.Logger is
// immutable: one serves every call).
var discard = diag.Discard()

// callLogger is the logger of one call: domain BROKER, the execution id
// and the summary on every line. A logger that shows nothing, not even
// L1, is not copied with them: a call without diagnostics pays nothing
// for them.
func (b *Broker) callLogger(ctx context.Context, id uuid.UUID, summary string) *slog.Logger {
	if !diag.Enabled(ctx, b.Logger, diag.L1) {
		return discard
	}
	return diag.For(b.Logger, diag.DomainBroker).With("execution_id", id.String(), "summary", summary)
}
