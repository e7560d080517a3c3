// Package risk names the risk profiles of ocfetch and resolves the active
// one for a workspace.
//
// A profile is one of [Strict], [Standard] or [Permissive]. It is chosen
// once per invocation by [Resolve]: an explicit value (the --profile flag)
// wins, else the "risk_profile" of <root>/.oc_chat/settings.json, else
// [Standard]. A settings file that exists but is malformed in any way is a
// refusal with code settings_invalid naming the file — never a silent fall
// back to a default. The package only reads settings: a tool can observe the
// profile, it can never set it.
//
//	ws, err := workspace.Resolve(rootFlag)
//	if err != nil { ... }
//	profile, err := risk.Resolve(ws, profileFlag) // "" when the flag is unset
//	if err != nil { ... } // *refusal.Error: invalid_arguments or settings_invalid
//	if profile == risk.Permissive { ... }
package risk
