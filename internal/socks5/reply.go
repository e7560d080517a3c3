package socks5

import "github.com/ocfetch/ocfetch/refusal"

// Reply is a reply with the bound address 0.0.0.0:0: the client of a
// CONNECT has no use for the proxy's outbound address, and it is not
// disclosed.
func Reply(rep byte) []byte {
	return []byte{Version, rep, 0, AtypIPv4, 0, 0, 0, 0, 0, 0}
}

// ReplyFor maps a refusal to the reply code clients show: "not allowed
// by ruleset" for every policy refusal (their reason is in the audit line
// and on ocfetch run's stderr), and the network's own answers for
// failures to reach the target.
func ReplyFor(r *refusal.Error) byte {
	switch r.Code {
	case refusal.Timeout:
		return TTLExpired
	case refusal.ConnectionFailed:
		return ConnectionRefused
	case refusal.TooManyConnections, refusal.InvalidArguments:
		return GeneralFailure
	}
	if r.Code.Policy() {
		return NotAllowed
	}
	return HostUnreachable
}
