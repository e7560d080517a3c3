// Package policy is the one decision step of ocfetch: may this scheme,
// host and port be reached, and who said so.
//
// Every front end calls [Decide] with the typed origin it parsed once
// (capability.OriginOf):
//
//	o, err := capability.OriginOf(u)
//	// …
//	d := policy.Decide(ctx, policy.Args{Origin: o, Workspace: ws, Profile: profile, Layers: layers})
//	switch d.Result {
//	case policy.Allow: // go ahead; d.LoopbackPort is set in local mode
//	case policy.Ask: // the broker asks its Approver; the proxy refuses with d.Refusal
//	case policy.Deny: // refuse with d.Refusal
//	}
//
// The layers are the administrator's managed policy, then the workspace —
// whose grants (a permissive profile, local ports, allow rules, an
// upstream proxy) count only when the user trusts it, while its deny rules
// and strict always do — then the user's own rules; a deny from any layer
// wins. [Layers] says where their files are (nil: the platform's places).
//
// The [Decision] names the [Layer], rule and file that decided, so a
// surprising refusal can be explained (`ocfetch explain URL`), and its
// DecidedBy is the audit vocabulary the broker and the proxy write alike.
//
// The package is pure policy: it reads small files (the workspace's, the
// managed policy, the user's rules, the trust store) and sends nothing,
// resolves nothing, and does not import net/http (a test proves
// it).
package policy
