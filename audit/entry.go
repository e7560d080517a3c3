package audit

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
)

// Entry is one audit line. Its fields are the whole record: there is
// deliberately no field for a URL, path, query, header or body.
type Entry struct {
	// Time is when the call started (UTC). Append fills in the current
	// time if it is zero.
	Time        time.Time `json:"time"`
	ExecutionID string    `json:"execution_id"`
	// Tool is the tool's name ("fetch", "proxy").
	Tool string `json:"tool"`
	// Summary is "<METHOD> <host>" ("GET example.com"), the tool's
	// AuditSummary, never more; see [Entry.Validate].
	Summary     string                  `json:"summary"`
	Requirement *capability.Requirement `json:"requirement,omitempty"`
	// Decision is DecisionAllow, DecisionDeny or DecisionRefused.
	Decision Decision `json:"decision"`
	// DecidedBy says what decided: ByRule, ByOnce, ByAlways, ByDenied,
	// ByUnanswered, ByProfile or ByPolicy.
	DecidedBy DecidedBy `json:"decided_by"`
	// Rule is the deciding rule when there was one, "allow example.com:443".
	Rule string `json:"rule,omitempty"`
	// Outcome is OutcomeOK or the refusal or failure reason code.
	Outcome    string `json:"outcome"`
	Status     int    `json:"status,omitempty"`
	Bytes      int64  `json:"bytes"`
	DurationMS int64  `json:"duration_ms"`
	// BytesUp and BytesDown count a proxied connection's traffic.
	BytesUp   int64 `json:"bytes_up,omitempty"`
	BytesDown int64 `json:"bytes_down,omitempty"`
	// RunID names the `ocfetch run` whose proxy wrote the line (a random
	// id per run, printed by `run --report`), so `ocfetch rules allow
	// --from-run RUN_ID` can find what that run was refused. Empty for
	// every other front end.
	RunID string `json:"run_id,omitempty"`
	// TrustedBy says how the workspace came to be trusted when one of its
	// own grants (an allow rule, a local port, a permissive profile, an
	// upstream proxy) counted in the decision and the trust was not the
	// user's trust store's: [TrustedByTrustRoot] when the operator's
	// `--trust-root` (OCFETCH_TRUST_ROOT) made it so. Empty otherwise.
	TrustedBy string `json:"trusted_by,omitempty"`
}

// TrustedByTrustRoot is the trusted_by of a line whose workspace grants
// counted because the process was started with --trust-root (or
// OCFETCH_TRUST_ROOT) naming the workspace.
const TrustedByTrustRoot = "trust_root"

// Decision is the decision an audit line records. The broker and the proxy
// use these constants alike.
type Decision string

// Decisions.
const (
	DecisionAllow   Decision = "allow"
	DecisionDeny    Decision = "deny"
	DecisionRefused Decision = "refused"
)

// DecidedBy says what made an audit line's decision: the typed vocabulary
// of the decided_by field, used by the policy core, the broker and the
// proxy alike.
type DecidedBy string

// What decided.
const (
	ByRule       DecidedBy = "rule"       // a saved rule
	ByOnce       DecidedBy = "once"       // the user approved this call
	ByAlways     DecidedBy = "always"     // the user approved and saved an allow rule
	BySession    DecidedBy = "session"    // the user approved for the rest of the MCP session
	ByDenied     DecidedBy = "denied"     // the user denied
	ByUnanswered DecidedBy = "unanswered" // nobody could be asked
	ByProfile    DecidedBy = "profile"    // the risk profile refused
	ByPolicy     DecidedBy = "policy"     // a policy check refused before any decision
)

// OutcomeOK is the outcome of a call that delivered a response.
const OutcomeOK = "ok"

// ErrInvalidEntry is wrapped by every error of [Entry.Validate].
var ErrInvalidEntry = errors.New("invalid audit entry")

// Size bounds of the free-form fields.
const (
	maxSummary = 300
	maxToken   = 64
)

// Validate checks e before it is written, as the last line of defence for
// the rule that an audit line carries no secret:
//
//   - Summary is "<METHOD> <host>" ("GET example.com"), or a generic
//     secret-free text when there is no host; it is printable ASCII of at
//     most 300 bytes and contains none of / ? # @ & = % \, so no URL, path,
//     query, userinfo or form body can hide in it;
//   - Rule is empty or "allow HOST:PORT" / "deny HOST:PORT";
//   - Requirement, if set, has a capability and a target (a non-zero
//     capability.Target, normalised by construction);
//   - Tool, ExecutionID, Outcome and RunID (if set) are short tokens; Decision and
//     DecidedBy are from the lists above; Status is 0 or 100–999; counts
//     are not negative; Time is set.
//
// Errors wrap [ErrInvalidEntry] and never quote the offending value.
func (e Entry) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidEntry, fmt.Sprintf(format, args...))
	}
	if e.Time.IsZero() {
		return bad("time is not set")
	}
	if !isToken(e.ExecutionID, idToken) {
		return bad("execution_id must be 1–%d letters, digits, '-', '_' or '.'", maxToken)
	}
	if !isToken(e.Tool, idToken) {
		return bad("tool must be 1–%d letters, digits, '-', '_' or '.'", maxToken)
	}
	if e.RunID != "" && !isToken(e.RunID, idToken) {
		return bad("run_id must be 1–%d letters, digits, '-', '_' or '.'", maxToken)
	}
	if e.TrustedBy != "" && e.TrustedBy != TrustedByTrustRoot {
		return bad("trusted_by must be empty or %q", TrustedByTrustRoot)
	}
	if err := checkSummary(e.Summary); err != nil {
		return bad("summary %v", err)
	}
	switch e.Decision {
	case DecisionAllow, DecisionDeny, DecisionRefused:
	default:
		return bad("decision must be %q, %q or %q", DecisionAllow, DecisionDeny, DecisionRefused)
	}
	switch e.DecidedBy {
	case ByRule, ByOnce, ByAlways, BySession, ByDenied, ByUnanswered, ByProfile, ByPolicy:
	default:
		return bad("decided_by is not one of rule, once, always, session, denied, unanswered, profile, policy")
	}
	if e.Rule != "" {
		d, target, ok := strings.Cut(e.Rule, " ")
		if !ok || (d != "allow" && d != "deny") || target == "" || !safeText(target, false) {
			return bad("rule must be \"allow HOST:PORT\" or \"deny HOST:PORT\"")
		}
	}
	if r := e.Requirement; r != nil {
		// A non-zero capability.Target is normalised by construction
		// (its fields are unexported, its JSON decoding refuses a host
		// not in normal form): its host is not normalised again here.
		if !isToken(string(r.Kind), idToken) || r.Target.IsZero() {
			return bad("requirement needs a capability and a port")
		}
	}
	if !isToken(e.Outcome, outcomeToken) {
		return bad("outcome must be %q or a reason code", OutcomeOK)
	}
	if e.Status != 0 && (e.Status < 100 || e.Status > 999) {
		return bad("status %d is not an HTTP status", e.Status)
	}
	if e.Bytes < 0 || e.DurationMS < 0 || e.BytesUp < 0 || e.BytesDown < 0 {
		return bad("negative count")
	}
	return nil
}

func checkSummary(s string) error {
	if len(s) > maxSummary {
		return fmt.Errorf("is longer than %d bytes", maxSummary)
	}
	if !safeText(s, true) {
		return errors.New(`must be "<METHOD> <host>": printable ASCII without / ? # @ & = % \`)
	}
	return nil
}

// The classes of byte the checks of an entry accept, as bits of
// byteClass: one table lookup a byte instead of a search of a set.
const (
	classLower      = 1 << iota // a–z
	classUpper                  // A–Z
	classDigit                  // 0–9
	classDashDot                // - .
	classUnderscore             // _
	classSpace                  // the space
	classText                   // printable ASCII but the space and / ? # @ & = % \

	// idToken is an execution or run ID, a tool or a capability name.
	idToken = classLower | classUpper | classDigit | classDashDot | classUnderscore
	// outcomeToken is "ok" or a reason code: lower case.
	outcomeToken = classLower | classDigit | classUnderscore
)

var byteClass = func() (t [256]uint8) {
	for c := 0x21; c <= 0x7e; c++ {
		if !strings.ContainsRune(`/?#@&=%\`, rune(c)) {
			t[c] |= classText
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= classLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= classUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= classDigit
	}
	t['-'] |= classDashDot
	t['.'] |= classDashDot
	t['_'] |= classUnderscore
	t[' '] |= classSpace
	return t
}()

// safeText reports whether s is printable ASCII free of the characters
// that introduce a path, query, fragment, userinfo, form field or escape;
// spaces only if allowed.
func safeText(s string, spaces bool) bool {
	allow := uint8(classText)
	if spaces {
		allow |= classSpace
	}
	for i := 0; i < len(s); i++ {
		if byteClass[s[i]]&allow == 0 {
			return false
		}
	}
	return true
}

// isToken reports whether s is 1–maxToken bytes, each of a class in allow.
func isToken(s string, allow uint8) bool {
	if s == "" || len(s) > maxToken {
		return false
	}
	for i := 0; i < len(s); i++ {
		if byteClass[s[i]]&allow == 0 {
			return false
		}
	}
	return true
}
