// Package managed reads the administrator's policy file: the one layer no
// flag, environment variable or workspace file can loosen.
//
//	Linux, FreeBSD, other Unix   /etc/ocfetch/policy.json
//	macOS                        /Library/Application Support/ocfetch/policy.json
//	Windows                      %ProgramData%\ocfetch\policy.json (the ProgramData known folder)
//
//	{"schema_version": 1,
//	 "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "deny"}],
//	 "max_profile": "standard", "managed_rules_only": false, "allow_once": true, "require_sandbox": false}
//
// Every field is optional, with the defaults shown. [Load] fails closed:
// a file that exists but is malformed, is not a regular file (a symlink
// included), or can be written by someone who is not an administrator is
// a managed_policy_invalid refusal naming the file, and the caller refuses
// every call until it is fixed. An absent file is the zero [Policy], which
// changes nothing. The path is compiled in per platform; no environment
// variable moves it (tests pass [Options.Path]).
//
//	p, err := managed.Load(nil)
//	if err != nil { return err } // managed_policy_invalid: refuse everything
//	profile = p.Cap(profile)
//	if m, ok := p.Rules.Decide(req); ok && m.Decision == rules.Deny { … }
package managed
