package broker

import (
	"bufio"
	"context"
	"fmt"
	"github.com/ocfetch/ocfetch/safetext"
	"io"
	"strings"
	"sync"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/risk"
)

// Answer is an approver's reply for one requirement.
type Answer int

const (
	// Unanswered means nobody could be asked (no terminal, a client without
	// elicitation). The call is refused with not_approved and a hint that
	// names the rule that would allow it.
	Unanswered Answer = iota
	// Deny refuses this call.
	Deny
	// Once approves this call only.
	Once
	// Always approves this call and saves an allow rule for the target.
	Always
	// Session approves this call, and the front end that asked (the MCP
	// server) remembers the approval for the rest of its session; nothing
	// is saved. Audited as decided by "session".
	Session
	// NoChoice means the question was put and the client accepted it
	// without choosing an answer (an MCP elicitation "accept" with no
	// decision, asked twice). The call is refused with not_approved,
	// saying so, and audited as decided by "unanswered": nobody chose.
	NoChoice
)

// String returns "unanswered", "deny", "once", "always", "session" or
// "no_choice".
func (a Answer) String() string {
	switch a {
	case Deny:
		return "deny"
	case Once:
		return "once"
	case Always:
		return "always"
	case Session:
		return "session"
	case NoChoice:
		return "no_choice"
	}
	return "unanswered"
}

// ApprovalRequest is what an approver is shown. It holds no path, query,
// header or body: Summary is "<METHOD> <host>" from the tool's AuditSummary.
type ApprovalRequest struct {
	Tool        string
	Summary     string
	Requirement capability.Requirement
	Profile     risk.Profile
}

// Approver decides a requirement that no saved rule covers. An error is
// treated as Unanswered.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Answer, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Answer, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Answer, error) {
	return f(ctx, req)
}

// NonInteractive returns the approver for a caller that cannot ask anyone:
// every uncovered requirement is Unanswered.
func NonInteractive() Approver {
	return ApproverFunc(func(context.Context, ApprovalRequest) (Answer, error) { return Unanswered, nil })
}

// ApproveOnce returns the approver behind `ocfetch get --yes`: every
// uncovered requirement is approved for this call only. It is asked only
// after deny rules and profile strict have had their say, so it never
// overrides them.
func ApproveOnce() Approver {
	return ApproverFunc(func(context.Context, ApprovalRequest) (Answer, error) { return Once, nil })
}

// NewTerminalApprover returns a [TerminalApprover] reading answers from in
// and writing questions to out, without naming the rules file.
func NewTerminalApprover(in io.Reader, out io.Writer) Approver {
	return &TerminalApprover{In: in, Out: out}
}

// maxPromptTries is how many times an answer that is not one of the
// choices is asked again before the call is denied.
const maxPromptTries = 3

// TerminalApprover asks a person on a terminal. It writes the question to
// Out — the summary, the target, the choices and the default — and reads
// one line from In: "o"/"once" (also "y"/"yes"), "a"/"always", "d"/"deny",
// and "s"/"session" when OfferSession.
// An empty line (Enter) takes the default, deny, as the prompt says. Any
// other answer is asked again, up to 3 times in all, and then denies; end
// of input denies. After "always" it says which rule goes to which file.
// The question shows the summary and the target only, never a path, query,
// header or body. Reading is synchronous: a cancelled ctx is noticed
// before asking, not while waiting for the line (give an In that gives up
// on ctx for that). A TerminalApprover asks one question at a time.
type TerminalApprover struct {
	// In carries the answers and Out the questions; Out is usually the
	// terminal's stderr, so the fetched content on stdout stays clean.
	In  io.Reader
	Out io.Writer
	// RulesFile is the rules file an "always" answer saves the allow rule
	// in (the workspace's .oc_chat/rules.json), named in the prompt and
	// after the answer. "" leaves the file unnamed.
	RulesFile string
	// OfferSession adds the choice "[s]ession" (Session: approved until
	// the front end that asked ends, nothing saved), for a front end that
	// remembers it (ocfetch run's proxy).
	OfferSession bool

	mu sync.Mutex
	br *bufio.Reader
}

// Approve asks about req; see [TerminalApprover].
func (t *TerminalApprover) Approve(ctx context.Context, req ApprovalRequest) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Unanswered, err
	}
	if t.br == nil {
		t.br = bufio.NewReader(t.In)
	}
	// Everything shown comes through safetext.Line: the summary and the
	// target hold the host a page or a model chose, and a control
	// sequence in a prompt could rewrite what the user is answering.
	target := safetext.Line(req.Requirement.Target.String())
	where := ""
	if t.RulesFile != "" {
		where = " in " + safetext.Line(t.RulesFile)
	}
	fmt.Fprintf(t.Out, "ocfetch: %s wants %s (%s)\n", safetext.Line(req.Tool), safetext.Line(req.Summary), safetext.Line(req.Requirement.String()))
	session, sessionHelp := "", ""
	if t.OfferSession {
		session, sessionHelp = "for this [s]ession, ", ", s (session)"
	}
	for try := 1; ; try++ {
		fmt.Fprintf(t.Out, "allow [o]nce, %s[a]lways (saves a rule for %s%s), or [d]eny? [default: deny] ", session, target, where)
		line, err := t.br.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(t.Out)
			return Deny, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "o", "once", "y", "yes":
			return Once, nil
		case "a", "always":
			fmt.Fprintf(t.Out, "ocfetch: saving the rule allow %s%s\n", target, where)
			return Always, nil
		case "s", "session":
			if t.OfferSession {
				return Session, nil
			}
		case "d", "deny", "n", "no", "":
			return Deny, nil
		}
		if try == maxPromptTries {
			fmt.Fprintln(t.Out, "ocfetch: no valid answer; denied")
			return Deny, nil
		}
		fmt.Fprintf(t.Out, "ocfetch: please answer o (once)%s, a (always) or d (deny); Enter denies\n", sessionHelp)
	}
}
