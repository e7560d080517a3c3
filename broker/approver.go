package broker

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

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
)

// String returns "unanswered", "deny", "once" or "always".
func (a Answer) String() string {
	switch a {
	case Deny:
		return "deny"
	case Once:
		return "once"
	case Always:
		return "always"
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

// NewTerminalApprover asks on a terminal: it writes the question to out and
// reads one line from in ("o"/"once", "a"/"always", "d"/"deny"; anything
// else, or end of input, is Deny). The question shows the summary and the
// target only. Reading is synchronous: a cancelled ctx is noticed before
// asking, not while waiting for the line.
func NewTerminalApprover(in io.Reader, out io.Writer) Approver {
	r := bufio.NewReader(in)
	return ApproverFunc(func(ctx context.Context, req ApprovalRequest) (Answer, error) {
		if err := ctx.Err(); err != nil {
			return Unanswered, err
		}
		fmt.Fprintf(out, "ocfetch: %s wants %s (%s)\n", req.Tool, req.Summary, req.Requirement)
		fmt.Fprintf(out, "allow [o]nce, [a]lways (saves a rule for %s), or [d]eny? ", req.Requirement.Target)
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(out)
			return Deny, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "o", "once", "y", "yes":
			return Once, nil
		case "a", "always":
			return Always, nil
		}
		return Deny, nil
	})
}
