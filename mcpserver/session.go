package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/workspace"
)

// sessionApprovals holds the approvals answered "for this session": in
// memory only, per MCP session, workspace root and network target, and
// forgotten when the session ends. A saved deny rule still wins: the
// broker consults rules before any approver.
type sessionApprovals struct {
	mu  sync.Mutex
	set map[*mcp.ServerSession]map[string]bool // session → "root\x00host:port"
}

func newSessionApprovals() *sessionApprovals {
	return &sessionApprovals{set: map[*mcp.ServerSession]map[string]bool{}}
}

func approvalKey(ws workspace.Workspace, target string) string { return ws.Root + "\x00" + target }

func (a *sessionApprovals) approved(ss *mcp.ServerSession, ws workspace.Workspace, target string) bool {
	if ss == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.set[ss][approvalKey(ws, target)]
}

// add records an approval for the session; the first one of a session
// starts the watch that forgets them all when it ends.
func (a *sessionApprovals) add(ss *mcp.ServerSession, ws workspace.Workspace, target string) {
	if ss == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.set[ss]
	if !ok {
		m = map[string]bool{}
		a.set[ss] = m
		go func() {
			ss.Wait()
			a.mu.Lock()
			delete(a.set, ss)
			a.mu.Unlock()
		}()
	}
	m[approvalKey(ws, target)] = true
}

// wrap returns an approver that answers Session, without asking, for a
// target approved for this session, and otherwise asks inner, recording a
// Session answer for later calls.
func (a *sessionApprovals) wrap(ss *mcp.ServerSession, ws workspace.Workspace, inner broker.Approver, answeredSession func() bool) broker.Approver {
	return broker.ApproverFunc(func(ctx context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
		target := req.Requirement.Target.String()
		if a.approved(ss, ws, target) {
			return broker.Session, nil
		}
		ans, err := inner.Approve(ctx, req)
		if err == nil && ans == broker.Session && answeredSession() {
			a.add(ss, ws, target)
		}
		return ans, err
	})
}

// coveredApprover returns, for a call whose every network requirement
// (reqs, of the prepared call) is approved for this session, the approver
// that lets it run without a question (on the multi round-trip protocol the
// question would otherwise be put before any approver is consulted).
func (s *server) coveredApprover(c *call, reqs []capability.Requirement, ws workspace.Workspace) (broker.Approver, bool) {
	if c.session == nil || len(reqs) == 0 {
		return nil, false
	}
	for _, r := range reqs {
		if !s.sessionOK.approved(c.session, ws, r.Target.String()) {
			return nil, false
		}
	}
	return broker.ApproverFunc(func(_ context.Context, r broker.ApprovalRequest) (broker.Answer, error) {
		if s.sessionOK.approved(c.session, ws, r.Requirement.Target.String()) {
			return broker.Session, nil
		}
		return broker.Unanswered, nil
	}), true
}

// withSessionApprovals wraps the approver of an interactive call so that a
// "session" answer is remembered and a remembered one is not asked again.
func (s *server) withSessionApprovals(ss *mcp.ServerSession, ws workspace.Workspace, a broker.Approver) broker.Approver {
	switch a := a.(type) {
	case *sessionApprover:
		return s.sessionOK.wrap(ss, ws, a, func() bool { return a.forSession })
	case *answeredApprover:
		return s.sessionOK.wrap(ss, ws, a, func() bool { return isSessionAnswer(a.res) })
	}
	return a
}
