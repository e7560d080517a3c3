// Package capability names what a tool call needs from the outside world and
// matches it against workspace rules.
//
// ocfetch has one capability kind, [KindNetwork], whose target is the
// `network.target.v1` pair (host, port). The Fetch tool, the egress proxy
// and (in the runtime ocfetch comes from) a shell's network and web search all
// express their need as the same [Requirement], so one saved rule covers them
// all. Hosts are normalised once, by [NormalizeHost], with the same UTS #46
// mapping net/http applies before it dials, so a rule, local mode and the
// dialer can never disagree about which host a URL names.
//
//	target, err := capability.ParseTarget("Bücher.example.", 443)
//	// target.Host() == "xn--bcher-kva.example", target.Port() == 443
//	p, _ := capability.ParseHostPattern("*.example")
//	p.Match(target.Host()) // true: a subdomain
//
// This package is pure policy: it does no I/O and does not import net/http.
package capability
