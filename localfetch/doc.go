// Package localfetch is local mode: the narrow, operator-ruled exception
// that lets the Fetch tool and the egress proxy reach a development server
// on the developer's own machine.
//
// The public fetch path is https-only and refuses every non-public address.
// Local mode admits a URL on exactly one of the three named local hosts,
// "localhost", "127.0.0.1" and "::1" (after [NormalizeLocalHost]), when and
// only when:
//
//  1. the active risk profile is [risk.Permissive];
//  2. the scheme is http or https;
//  3. the URL carries no credentials;
//  4. the port is explicit; and
//  5. the port is listed in the visible, per-project allowlist file
//     <root>/.oc_chat/local_fetch.json, {"schema_version": 1, "ports": [3000]}.
//
// [AdmitLocalURL] applies that rule, in that order, and either returns the
// admitted port or a *refusal.Error naming the profile, scheme, host, port or
// file — a refused local URL never falls through to the public path.
//
// Contracts, each kept by the function that owns it:
//
//   - Fail closed ([ReadAllowedPorts]): a missing, unreadable or malformed
//     allowlist admits nothing, and every error names the file. There is no
//     environment-variable source: the allowlist is a visible file.
//   - Checked on every call ([AdmitLocalURL]): a stat of the file (and of
//     .oc_chat) on every call, a new read whenever it changed, so an edit
//     takes effect on the next call and deleting the file closes the door at
//     once (seed 000's promise, kept at the cost of a stat: [ReadAllowedPorts]).
//   - The three hosts only ([IsLocalTarget]): 127.0.0.2, ::ffff:127.0.0.1,
//     0.0.0.0, RFC 1918, link-local and metadata addresses are never local
//     targets; they stay refused by the egress guard whatever the allowlist
//     says.
//   - Tools never write the allowlist: [WriteAllowedPorts], [AllowPort] and
//     [RevokePort] exist for the user's `ocfetch local allow|revoke PORT`.
//
// Wiring, in the Fetch tool (call once per request and once per redirect
// hop):
//
//	if localfetch.IsLocalTarget(rawURL) {
//		port, err := localfetch.Admit(origin, ws, profile) // origin: capability.OriginOf
//		if err != nil {
//			return tool.ErrorResult(err) // named refusal, never the public path
//		}
//		ctx = egress.WithLoopback(ctx, capability.Target{Host: origin.Target.Host, Port: port})
//	}
//	...
//	summary := localfetch.BoundedResponseHeaders(resp.Header)
package localfetch
