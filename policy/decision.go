package policy

import (
	"strings"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
)

// Result is what a decision says: allow, deny, or ask the user.
type Result uint8

// Results. The zero Result is not a decision; [Decide] never returns it.
const (
	Allow Result = iota + 1
	Deny
	Ask
)

// String returns "allow", "deny" or "ask".
func (r Result) String() string {
	switch r {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	}
	return "invalid"
}

// Layer is where the deciding rule or check lives.
type Layer uint8

// Layers, in the order [Decide] consults them: a managed policy first, the
// workspace (its rules.json and local_fetch.json), the user's own rules,
// then the built-in rules (the address check, the scheme rule, the profile,
// and "ask" when nothing covers a target). A deny from any layer wins over
// an allow from another.
const (
	LayerManaged Layer = iota + 1
	LayerWorkspace
	LayerUser
	LayerBuiltin
)

// String returns "managed", "workspace", "user" or "builtin".
func (l Layer) String() string {
	switch l {
	case LayerManaged:
		return "managed"
	case LayerWorkspace:
		return "workspace"
	case LayerUser:
		return "user"
	case LayerBuiltin:
		return "builtin"
	}
	return "none"
}

// Decision is the answer of [Decide] for one origin: a value, safe to
// copy (its Trace, when asked for, is shared by copies).
type Decision struct {
	Result Result
	// Layer is the layer that decided.
	Layer Layer
	// Rule is the deciding rule as its file writes it
	// ("allow example.com:443"), or "" when no rule decided.
	Rule string
	// File is the file the deciding rule or check came from (rules.json,
	// local_fetch.json), or "" for a built-in rule.
	File string
	// Target is the target decided on: the host and port the transport
	// may dial, and no other.
	Target capability.Target
	// LoopbackPort is the port local mode admitted (0: not local mode).
	// The transport dials the loopback address written (127.0.0.1 or ::1;
	// localhost: both) on this port only.
	LoopbackPort uint16
	// Refusal says why, for Deny; for Ask it is the not_approved refusal a
	// front end returns when nobody approves (the user denies, nobody can
	// be asked, or the front end never asks, as the proxy). Nil for Allow.
	Refusal *refusal.Error
	// DecidedBy is the audit line's decided_by for Allow and Deny. For Ask
	// it is empty: the answer decides (once, always, denied, unanswered).
	DecidedBy audit.DecidedBy
	// Trace is what Decide consulted, in order, and what each said; set
	// only when Args.Trace asks (`ocfetch explain` prints it).
	Trace []Step
	// Note is a secret-free remark for whoever reports an Ask or a Deny:
	// why a rule the user saved counted for nothing (the open-web rule a
	// managed policy forbids). The Refusal's message carries it too.
	Note string
	// TrustedBy is audit.TrustedByTrustRoot when a workspace grant was
	// consulted and counted because the process's trust store pins the
	// workspace (trust.Store.Pin: the operator's --trust-root), not
	// through an entry of the store; "" otherwise. Front ends copy it into
	// the audit line (trusted_by).
	TrustedBy string
}

// Checks a [Step] names besides the rule files.
const (
	// CheckLocal is local mode's admission (localfetch.Admit).
	CheckLocal = "local mode"
	// CheckAddress is the address check of an IP literal (netrange).
	CheckAddress = "address"
)

// Step is one step of a decision's trace: the layer, the check ("policy",
// [CheckLocal], [CheckAddress], "rules", "profile"), the file it read ("" for a
// built-in check) and what it said ("absent", "allow example.com:443",
// "admits port 3000", "in 10.0.0.0/8 (private-use)", …). Secret-free: no
// path or query of a URL.
type Step struct {
	Layer Layer
	Check string
	File  string
	Said  string
	// Port is the port local mode admitted ([CheckLocal]); Refusal what a
	// refusing check said ([CheckLocal]); Range the IANA range of a
	// non-public address ([CheckAddress]).
	Port    uint16
	Refusal *refusal.Error
	Range   string
}

// Allowed reports whether the decision lets the call go ahead unasked.
func (d Decision) Allowed() bool { return d.Result == Allow }

// String returns one line for logs and `ocfetch explain`, such as
// `deny example.com:443 by workspace rule "deny example.com:443" in
// /p/.oc_chat/rules.json (denied_by_rule)`. It holds no path or query of
// a URL: only the target, the rule and the file.
func (d Decision) String() string {
	var b strings.Builder
	b.WriteString(d.Result.String())
	if d.Target.Host() != "" {
		b.WriteString(" " + d.Target.String())
	}
	if d.Layer != 0 {
		b.WriteString(" by " + d.Layer.String())
		if d.Rule != "" {
			b.WriteString(" rule \"" + d.Rule + "\"")
		}
	}
	if d.File != "" {
		b.WriteString(" in " + d.File)
	}
	if d.LoopbackPort != 0 {
		b.WriteString(" (local mode admits the port)")
	}
	if d.Refusal != nil {
		b.WriteString(" (" + string(d.Refusal.Code) + ")")
	}
	return b.String()
}

// AuditDecision is the decision field of the audit line of a call decided
// d and refused, or DecisionAllow when it went ahead: deny when a rule,
// the profile or the user refused, refused when a policy check did.
func AuditDecision(allowed bool, by audit.DecidedBy) audit.Decision {
	switch {
	case allowed:
		return audit.DecisionAllow
	case by == audit.ByPolicy || by == "":
		return audit.DecisionRefused
	}
	return audit.DecisionDeny
}
