package proxy

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
)

// AskOptions let the proxy put a target that no rule covers to the user
// (`ocfetch run` on a terminal). Without them (Options.Ask nil) the proxy
// never asks: what policy.Decide answers Ask is refused not_approved.
type AskOptions struct {
	// Approver is asked, one question at a time (the proxy serialises
	// them, and a question for a target answered "session" meanwhile is
	// not asked again). Once lets the one request or tunnel through;
	// Session every request to the target until the server is closed;
	// Always saves the allow rule in the workspace's rules.json (and lets
	// this one through even if saving fails); Deny and Unanswered refuse
	// it not_approved. Policy.Decide answers Ask only where asking is
	// allowed: never under profile strict, a managed policy's
	// managed_rules_only or allow_once false.
	Approver broker.Approver
	// Command names who asks, in the question ("curl (ocfetch run)").
	Command string
	// Warn receives a line when an "always" rule could not be saved or
	// does not count yet (an untrusted workspace). Nil: discarded.
	Warn io.Writer
}

// asker holds the state of the questions of one server.
type asker struct {
	o AskOptions

	mu      sync.Mutex // held while a question is asked: one at a time
	session map[capability.Target]bool
}

func newAsker(o *AskOptions) *asker {
	if o == nil || o.Approver == nil {
		return nil
	}
	a := &asker{o: *o, session: map[capability.Target]bool{}}
	if a.o.Warn == nil {
		a.o.Warn = io.Discard
	}
	return a
}

// approve asks the Approver, and gives up (Unanswered) when ctx is done:
// a question still waiting on a terminal line when the server closes (the
// command exited) must not hold the shutdown. The abandoned question ends
// with the process.
func (a *asker) approve(ctx context.Context, req broker.ApprovalRequest) broker.Answer {
	done := make(chan broker.Answer, 1)
	go func() {
		ans, err := a.o.Approver.Approve(ctx, req)
		if err != nil {
			ans = broker.Unanswered
		}
		done <- ans
	}()
	select {
	case ans := <-done:
		return ans
	case <-ctx.Done():
		return broker.Unanswered
	}
}

// ask puts origin o, which d (decided on args) left to be asked,
// to the user and returns how it was answered: the audit line's decided_by and rule for an approval,
// or the refusal.
func (s *Server) ask(ctx context.Context, o capability.Origin, d policy.Decision, args policy.Args) (audit.DecidedBy, string, *refusal.Error) {
	a := s.asker
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session[o.Target] {
		return audit.BySession, "", nil
	}
	summary := "CONNECT " + o.Target.String()
	if o.Scheme != "" {
		summary = "HTTP " + o.Target.String()
	}
	answer := a.approve(ctx, broker.ApprovalRequest{Tool: a.o.Command, Summary: summary, Requirement: capability.Network(o.Target), Profile: args.Profile})
	switch answer {
	case broker.Once:
		return audit.ByOnce, "", nil
	case broker.Session:
		a.session[o.Target] = true
		return audit.BySession, "", nil
	case broker.Always:
		rule := rules.NewRule(rules.Allow, capability.HostPattern{Host: o.Target.Host()}, o.Target.Port())
		saved, warn := s.saveAlways(ctx, rule)
		if warn != "" {
			fmt.Fprintln(a.o.Warn, "ocfetch: warning: "+safetext.Line(warn))
		}
		if !saved {
			return audit.ByOnce, "", nil
		}
		// Later requests are covered by the rule; this session also
		// remembers it, so an untrusted workspace is not asked again.
		a.session[o.Target] = true
		return audit.ByAlways, rule.String(), nil
	case broker.Deny:
		return audit.ByDenied, "", refusal.Newf(refusal.NotApproved, "%s was denied by the user", o.Target).WithHint(d.Refusal.Hint)
	}
	return audit.ByUnanswered, "", refusal.Newf(refusal.NotApproved,
		"%s is not covered by a saved rule, and nobody answered the question", o.Target).WithHint(d.Refusal.Hint)
}

// saveAlways saves rule in the workspace, trusting a workspace whose
// .oc_chat/ this first write creates (as the broker's "always" does). It
// reports whether the rule was saved, and a secret-free warning when it
// was not, or does not count yet (an untrusted workspace).
func (s *Server) saveAlways(ctx context.Context, rule rules.Rule) (saved bool, warn string) {
	trusted := false
	st, err := s.scope.Layers.TrustStore()
	if err == nil {
		var created bool
		if created, err = st.EnsureWorkspace(ctx, s.scope.Workspace, "an \"always\" answer"); err == nil {
			trusted = created
			if !created {
				trusted, err = st.Trusted(s.scope.Workspace.Root)
			}
		}
	}
	if aerr := rules.Add(ctx, s.scope.Workspace, rule); aerr != nil {
		msg := "the rules file cannot be written"
		if r, ok := refusal.As(aerr); ok {
			msg = r.Message
		}
		return false, fmt.Sprintf("approved once: the rule %q was not saved: %s", rule.String(), msg)
	}
	diag.RuleSaved(ctx, s.decideLog, string(rule.Decision), rule.Target.Host, rule.Target.Port, s.scope.Workspace.RulesPath())
	if !trusted || err != nil {
		return true, fmt.Sprintf("the rule %q was saved in %s, but the workspace is not trusted, so it counts only once you trust it (ocfetch trust); approved for this run", rule.String(), s.scope.Workspace.RulesPath())
	}
	return true, ""
}
