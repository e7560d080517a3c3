// Package localfetch is local mode: the narrow, operator-ruled exception
// that lets the Fetch tool and the egress proxy reach a development server
// on the developer's own machine.
//
// The public fetch path is https-only and refuses every non-public address.
// Local mode admits a URL on exactly one of the three named local hosts,
// "localhost", "127.0.0.1" and "::1" (after capability.NormalizeHost), when and
// only when:
//
//  1. the active risk profile is [risk.Permissive];
//  2. the scheme is http or https;
//  3. the URL carries no credentials;
//  4. the port is explicit; and
//  5. the port is listed in the visible, per-project allowlist file
//     <root>/.oc_chat/local_fetch.json, {"schema_version": 1, "ports": [3000]}.
//
// The front end checks the URL's parse-level part once (scheme, credentials,
// host normalisation, port syntax: fetch.PrepareCall, the proxy's request
// target); [Admit] applies the rest, as the layer policy.Decide consults for
// a local host, and either returns the admitted port or a *refusal.Error
// naming the profile, host, port or file — a refused local URL never falls
// through to the public path. The decision order is stated once, in
// docs/DESIGN.md.
//
// Contracts, each kept by the function that owns it:
//
//   - Fail closed ([ReadAllowedPorts]): a missing, unreadable or malformed
//     allowlist admits nothing, and every error names the file. There is no
//     environment-variable source: the allowlist is a visible file.
//   - Checked on every call ([Admit]): a stat of the file (and of
//     .oc_chat) on every call, a new read whenever it changed, so an edit
//     takes effect on the next call and deleting the file closes the door at
//     once (seed 000's promise, kept at the cost of a stat: [ReadAllowedPorts]).
//   - The three hosts only (capability.IsLocalHost): 127.0.0.2, ::ffff:127.0.0.1,
//     0.0.0.0, RFC 1918, link-local and metadata addresses are never local
//     targets; they stay refused by the egress guard whatever the allowlist
//     says.
//   - Tools never write the allowlist: [WriteAllowedPorts], [AllowPort] and
//     [RevokePort] exist for the user's `ocfetch local allow|revoke PORT`.
//
// Wiring: policy.Decide calls [Admit] for a local host on every request
// and every redirect hop (each hop is a new call of Decide); the decision's
// LoopbackPort travels to the transport, which dials under
// egress.WithLoopback. The delivery check's header summary:
//
//	summary := localfetch.BoundedResponseHeaders(resp.Header)
package localfetch
