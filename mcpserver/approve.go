package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/workspace"
)

// The choices of the approval form, in the order they are offered.
const (
	choiceOnce    = "once"
	choiceSession = "session"
	choiceAlways  = "always"
	choiceDeny    = "deny"
)

// decisionField is the one property of the approval form.
const decisionField = "decision"

// approvalMessage is the question put to the user. It shows the tool, the
// call's summary ("<METHOD> <host>", from the tool's AuditSummary) and the
// network target: never the path, query, headers or body of the request.
func approvalMessage(req broker.ApprovalRequest, ws workspace.Workspace) string {
	return fmt.Sprintf("%s wants %s (%s).\n"+
		"Allow it once, for this session, always (saves an allow rule for %s in %s), or deny?",
		req.Tool, req.Summary, req.Requirement, req.Requirement.Target, ws.RulesPath())
}

// elicitParams is the form elicitation for req: one required string
// "decision", one of once / session / always / deny, written to the
// 2025-11-25 schema: titled options as oneOf const/title (not the
// deprecated enumNames).
func elicitParams(req broker.ApprovalRequest, ws workspace.Workspace) *mcp.ElicitParams {
	target := req.Requirement.Target.String()
	option := func(v, title string) map[string]any { return map[string]any{"const": v, "title": title} }
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: approvalMessage(req, ws),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				decisionField: map[string]any{
					"type":        "string",
					"title":       "Allow network access to " + target + "?",
					"description": "once: this call only; session: this call and later ones until this MCP session ends (kept in memory); always: this call and later ones (saves a rule); deny: refuse this call.",
					"oneOf": []any{
						option(choiceOnce, "Allow once"),
						option(choiceSession, "Allow for this session"),
						option(choiceAlways, "Always allow "+target),
						option(choiceDeny, "Deny"),
					},
				},
			},
			"required": []string{decisionField},
		},
	}
}

// answerOf maps the user's response onto the broker's answers. Only an
// accepted form naming once, session or always approves (session is
// broker.Session; the server remembers it for the session); an accepted
// "deny", a decline, a cancel and any other value are Deny: the call is
// refused with not_approved. A nil result (nobody answered) is
// Unanswered; an accept without a decision ([isEmptyAccept]: the question
// reached the client, which chose nothing) is NoChoice.
func answerOf(res *mcp.ElicitResult) broker.Answer {
	if res == nil {
		return broker.Unanswered
	}
	if isEmptyAccept(res) {
		return broker.NoChoice
	}
	if res.Action != "accept" {
		return broker.Deny
	}
	switch v, _ := res.Content[decisionField].(string); v {
	case choiceOnce:
		return broker.Once
	case choiceSession:
		return broker.Session
	case choiceAlways:
		return broker.Always
	}
	return broker.Deny
}

// fitApprovalAnswer reads the client's answer to an approval question
// before the SDK checks it against the requested schema: an accepted
// answer the schema does not admit would otherwise be an error in place
// of the answer, which the broker can only take for nobody answering
// ("nobody could be asked", and no second question). Read as answerOf
// reads it, an accept without a decision ("content": {}) chose nothing:
// its content is dropped, so that it is an empty accept ([isEmptyAccept]:
// asked once more, then NoChoice); a decision that is not one of the
// choices ("ONCE", a number) is a deny. Every elicitation this server
// sends is the approval form ([elicitParams]).
func fitApprovalAnswer(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ElicitResult); ok && err == nil && r.Action == "accept" {
			v, chose := r.Content[decisionField]
			switch s, _ := v.(string); {
			case !chose:
				r.Content = nil
			case s != choiceOnce && s != choiceSession && s != choiceAlways && s != choiceDeny:
				r.Content = map[string]any{decisionField: choiceDeny}
			}
		}
		return res, err
	}
}

// isEmptyAccept: the client accepted the form but sent no decision.
func isEmptyAccept(res *mcp.ElicitResult) bool {
	if res == nil || res.Action != "accept" {
		return false
	}
	_, ok := res.Content[decisionField]
	return !ok
}

func isSessionAnswer(res *mcp.ElicitResult) bool {
	if res == nil || res.Action != "accept" {
		return false
	}
	v, _ := res.Content[decisionField].(string)
	return v == choiceSession
}

// sessionApprover asks the user of one session by elicitation, synchronously
// (protocol versions before 2026-07-28). It is built per call: it needs the
// session of that call.
type sessionApprover struct {
	session *mcp.ServerSession
	ws      workspace.Workspace
	// forSession: the last answer was "for this session".
	forSession bool
}

// Approve sends the elicitation and waits for the answer. An error (the
// client failed, the call was cancelled) is returned as such: the broker
// refuses the call with not_approved.
func (a *sessionApprover) Approve(ctx context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
	params := elicitParams(req, a.ws)
	res, err := a.session.Elicit(ctx, params)
	if err == nil && isEmptyAccept(res) {
		// An accept without a decision leaves the question open: ask once
		// more before giving up.
		res, err = a.session.Elicit(ctx, params)
	}
	if err != nil {
		return broker.Unanswered, fmt.Errorf("elicitation: %w", err)
	}
	a.forSession = isSessionAnswer(res)
	return answerOf(res), nil
}

// answeredApprover replays the user's answer carried by a retried call on
// the multi round-trip protocol. It answers only for the target the
// question was about; any other requirement is Unanswered.
type answeredApprover struct {
	target string
	res    *mcp.ElicitResult
}

func (a *answeredApprover) Approve(_ context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
	if req.Requirement.Target.String() != a.target {
		return broker.Unanswered, nil
	}
	return answerOf(a.res), nil
}

// answered returns the approver holding the answer of a retried call: the
// call must carry this server's state for these arguments and workspace,
// naming the target, and a response to the approval question, and must not
// have been answered before (the state's nonce is consumed). A response
// that is not an elicitation result counts as nobody answering, so that a
// confused client gets not_approved rather than the question forever.
func (c *call) answered(ws workspace.Workspace) (broker.Approver, bool) {
	if c.state == nil || c.state.Target == "" || c.state.Root != ws.Root {
		return nil, false
	}
	r, ok := c.inputResponse(inputApproval)
	if !ok {
		return nil, false
	}
	// One approval, one call: a state already answered is no state, and
	// the question is asked again.
	if res, _ := r.(*mcp.ElicitResult); !isEmptyAccept(res) && !c.s.state.consume(*c.state) {
		c.s.log.Log(context.Background(), diag.L2, "request state answered before: asking again", "target", c.state.Target)
		return nil, false
	}
	res, _ := r.(*mcp.ElicitResult)
	if isEmptyAccept(res) {
		// The question was left unanswered: put it again.
		return nil, false
	}
	return &answeredApprover{target: c.state.Target, res: res}, true
}
