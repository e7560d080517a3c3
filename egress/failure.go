package egress

import (
	"errors"
	"net"
	"strconv"
	"syscall"

	"github.com/ocfetch/ocfetch/refusal"
)

// Cause is why a connection could not be made, as the operating system or
// the resolver reported it.
type Cause string

// The causes [FailureCause] recognises.
const (
	CauseRefused        Cause = "connection refused"
	CauseReset          Cause = "connection reset"
	CauseNoRoute        Cause = "no route to host"
	CauseNetUnreachable Cause = "network unreachable"
	CauseNoSuchHost     Cause = "no such host"
	// CauseDNSUnreachable: the resolver could not get an answer (no DNS
	// server reachable, a timeout, a temporary failure) — the name may
	// well exist.
	CauseDNSUnreachable Cause = "DNS unreachable"
)

// FailureCause returns the cause of a failed dial or request found in
// err's chain, or "" when none is recognised. It reads error values only
// (errno, *net.DNSError), never an error's text, which may carry a URL.
func FailureCause(err error) Cause {
	if err == nil {
		return ""
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		switch {
		case dns.IsNotFound && !dns.IsTemporary && !dns.IsTimeout:
			return CauseNoSuchHost
		default:
			// No answer at all: not a misspelt name, and not the
			// target's errno either (a refused connection to the
			// resolver is not the target refusing).
			return CauseDNSUnreachable
		}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoCause(errno)
	}
	return ""
}

// ExplainFailure returns r, a connection_failed refusal, with the cause
// of its failure appended to the message ("cannot connect to
// 127.0.0.1:8769: connection refused") and a hint that fits the cause;
// when local is true the target is local mode's loopback port and a
// refused connection asks "is a server listening on port PORT?". A refusal
// of another code, one whose message already names a cause, and one whose
// cause is not recognised keep message and hint (a hint is set when none
// was). r's cause stays reachable with errors.Is/As.
func ExplainFailure(r *refusal.Error, local bool, port uint16) *refusal.Error {
	if r == nil || r.Code != refusal.ConnectionFailed {
		return r
	}
	cause := FailureCause(r.Err)
	p := strconv.Itoa(int(port))
	out := r
	if cause != "" && !containsCause(r.Message) {
		c := *r // every field kept (a model's hint too), the message extended
		c.Message = r.Message + ": " + string(cause)
		out = &c
	}
	if out.Hint != "" {
		return out
	}
	var hint, forModel string
	switch {
	case local && (cause == CauseRefused || cause == CauseReset):
		hint = "is a server listening on port " + p + "? start your dev server, or check the port"
	case cause == CauseRefused:
		hint = "nothing accepts connections on port " + p + " there; check the port"
	case cause == CauseReset:
		hint = "the server or a network device reset the connection; try again later"
	case cause == CauseNoRoute || cause == CauseNetUnreachable:
		hint = "this machine has no route there; check the network (behind a corporate proxy, use --upstream-proxy)"
		forModel = "this machine has no route there; try again later, or tell the user " + proxyFlagForModel
	case cause == CauseNoSuchHost:
		hint = "the name does not exist in DNS; check its spelling"
	case cause == CauseDNSUnreachable:
		hint = "no DNS server answered; check this machine's network and DNS settings (behind a corporate proxy, use --upstream-proxy: the proxy resolves nothing for ocfetch, but it reaches the target)"
		forModel = "no DNS server answered; try again later, or tell the user " + proxyFlagForModel
	default:
		return out
	}
	return out.WithHints(hint, forModel)
}

// proxyFlagForModel ends a model's hint (refusal.Error.ModelHint) where a
// person's says "use --upstream-proxy": the flag is the user's to pass.
const proxyFlagForModel = "(behind a corporate proxy, ask the user to start ocfetch with --upstream-proxy)"

// upstreamModelHint is a model's hint for a failure of the upstream proxy
// (what it did): only the user can fix or change the proxy, its
// credentials and its CA, which the person's hints name.
func upstreamModelHint(what string) string {
	return "the upstream proxy ocfetch is configured with " + what + "; tell the user, who configures it"
}

func containsCause(msg string) bool {
	for _, c := range []Cause{CauseRefused, CauseReset, CauseNoRoute, CauseNetUnreachable, CauseNoSuchHost, CauseDNSUnreachable} {
		if len(msg) >= len(c) && msg[len(msg)-len(c):] == string(c) {
			return true
		}
	}
	return false
}
