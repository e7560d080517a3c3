// Package rules is the durable workspace rule store, <root>/.oc_chat/rules.json:
// saved allow and deny decisions for capability targets.
//
//	{"schema_version": 1, "rules": [
//	  {"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}
//	]}
//
// A rule's host is an exact host or a wildcard "*.example.com" that matches
// every subdomain of example.com but not example.com itself; the port
// always matches exactly. A deny rule wins over every allow rule
// ([Set.Decide]).
//
// [Load] reads the file fail-closed: anything but a well-formed schema 1
// file (or no file at all) is a *refusal.Error with code rules_invalid that
// names the file. [Add] and [Remove] are locked read-modify-write cycles
// that replace the file atomically, so concurrent writers in any number of
// goroutines and processes never lose a rule and a crash never leaves a
// torn file. The file is written sorted, one rule a line; unlike the
// other workspace files it may grow to [MaxFileSize] (2 MiB, about 18,000
// rules), still bounded.
//
//	set, err := rules.Load(ws)
//	if err != nil { return err } // rules_invalid: fail closed
//	if m, ok := set.Decide(capability.Network(target)); ok && m.Decision == rules.Allow { … }
//
//	pattern, port, err := rules.ParseRuleTarget("*.example.com:8443")
//	err = rules.Add(ctx, ws, rules.NewRule(rules.Allow, pattern, port))
package rules
