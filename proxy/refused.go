package proxy

import (
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Refusal is one refusal by policy, as [Options].Refused receives it.
type Refusal struct {
	// Method is "CONNECT" for HTTP CONNECT and SOCKS5, else the HTTP
	// method (a token of at most 16 bytes, or "OTHER").
	Method string
	// Target is the host and port asked for; its Host is empty when the
	// request could not be read that far.
	Target capability.Target
	// File is the policy file that decided (a deny rule's rules.json, the
	// local_fetch.json that lacks a port, …) or, for a target no rule
	// covers, the workspace's rules.json where an allow rule would go; ""
	// when no file decided.
	File string
	// Err is the refusal, with the code, message and hint the client got.
	Err *refusal.Error
}

// Line is the one line ocfetch run prints for r, without a newline. The
// command inside ocfetch run reads it as often as a person does, and that
// command is often a model's: so it names the host and the file, and says
// to ask the user to allow it (or, for an address that is not public,
// that no rule can) — the command that would is given as the user's to
// run, never as one to run from inside:
//
//	ocfetch: refused CONNECT example.org:443: not_approved (file /src/proj/.oc_chat/rules.json) — ask the user to allow it; the user can run: ocfetch rules allow example.org:443
//
// The target is quoted with safetext.ShellQuote, the file and the hint
// passed through safetext.Line, so the line carries no control character
// whatever a client sent. It never holds a path of the request, a query or
// a header.
func (r Refusal) Line() string {
	var b strings.Builder
	b.WriteString("ocfetch: refused ")
	b.WriteString(r.Method)
	if r.Target.Host() != "" {
		b.WriteString(" ")
		b.WriteString(safetext.ShellQuote(r.Target.String()))
	}
	b.WriteString(": ")
	b.WriteString(string(r.Err.Code))
	if r.File != "" {
		b.WriteString(" (file ")
		b.WriteString(safetext.Line(r.File))
		b.WriteString(")")
	}
	if r.Target.Host() == "" {
		// The request could not be read as far as a target: nothing to
		// allow, only the hint (how to send it).
		if h := oneLine(r.Err.Hint); h != "" {
			b.WriteString(" — ")
			b.WriteString(safetext.Line(h))
		}
		return b.String()
	}
	if r.Err.Code == refusal.AddressNotPublic {
		// No rule or answer reaches a non-public address: asking the
		// user to allow it would send them after a rule that cannot be.
		b.WriteString(" — no rule can allow it")
	} else {
		b.WriteString(" — ask the user to allow it")
	}
	if h := oneLine(r.Err.Hint); h != "" {
		// "allow it with: CMD", "remove the rule with: CMD": the command
		// is the user's to run; another hint is passed on as it is.
		if _, cmd, ok := strings.Cut(h, " with: "); ok && strings.HasPrefix(cmd, "ocfetch ") {
			b.WriteString("; the user can run: ")
			b.WriteString(safetext.Line(cmd))
		} else {
			b.WriteString("; for the user: ")
			b.WriteString(safetext.Line(h))
		}
	}
	return b.String()
}
