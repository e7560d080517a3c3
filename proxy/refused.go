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
	// Err is the refusal, with the code, message and hint the client got.
	Err *refusal.Error
}

// Line is the one line ocfetch run prints for r, without a newline:
//
//	ocfetch: refused CONNECT example.org:443: not_approved — allow it with: ocfetch rules allow example.org:443
//
// The target is quoted with safetext.ShellQuote and the hint passed
// through safetext.Line, so the line carries no control character
// whatever a client sent. It never holds a path, query or header.
func (r Refusal) Line() string {
	var b strings.Builder
	b.WriteString("ocfetch: refused ")
	b.WriteString(r.Method)
	if r.Target.Host != "" {
		b.WriteString(" ")
		b.WriteString(safetext.ShellQuote(r.Target.String()))
	}
	b.WriteString(": ")
	b.WriteString(string(r.Err.Code))
	if r.Err.Hint != "" {
		b.WriteString(" — ")
		b.WriteString(safetext.Line(oneLine(r.Err.Hint)))
	}
	return b.String()
}
