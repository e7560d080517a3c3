package rules

import (
	"context"
	"fmt"
	"slices"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// filePerm is rules.json's mode: rules are not secret, and a user edits them.
const filePerm = 0o644

// Add saves r in the workspace's rules.json, replacing every rule for the
// same capability, host pattern and port (so saving deny over an allow
// flips it). r's host may be in any form that normalises.
//
// The cycle is locked (an flock on rules.json.lock, waiting until ctx is
// done) and the file is replaced atomically, so concurrent Adds and Removes
// from any goroutine or process all take effect and a reader or a crash
// sees the old file or the new one, never a torn one. If the existing file
// does not load, Add refuses with its rules_invalid error and writes
// nothing. An invalid r is refused with invalid_arguments (invalid_host for
// its host); a store that would outgrow [MaxFileSize] (about 18,000
// rules) is refused with rules_invalid. A rules.json that is a symlink
// does not load (it is refused as the reader refuses it), so nothing is
// written and the link's target is left alone.
func Add(ctx context.Context, ws workspace.Workspace, r Rule) error {
	change, err := adding(r)
	if err != nil {
		return err
	}
	return update(ctx, ws, change)
}

// adding validates r and returns the change that puts it in a rule list in
// place of any rule for the same target: the one Add of every store.
func adding(r Rule) (func([]Rule) []Rule, error) {
	nr, _, err := normalize(r)
	if err != nil {
		code := refusal.InvalidArguments
		if errorIsHost(err) {
			code = refusal.InvalidHost
		}
		return nil, refusal.Newf(code, "rule %s: %v", safetext.Short(r.String()), err).Wrap(err)
	}
	return func(rules []Rule) []Rule {
		rules = slices.DeleteFunc(rules, func(x Rule) bool { return sameTarget(x, nr) })
		return append(rules, nr)
	}, nil
}

// Remove deletes every rule (allow or deny) for host and port, where host
// is an exact host or "*.domain" as in rules.json, and reports whether one
// existed. When none did, the file is not written. Locking, atomicity and
// failing closed are as for [Add].
func Remove(ctx context.Context, ws workspace.Workspace, host string, port uint16) (bool, error) {
	change, removed, err := removing(host, port)
	if err != nil {
		return false, err
	}
	err = update(ctx, ws, change)
	return *removed, err
}

// removing validates host and returns the change that deletes every rule
// for host and port from a rule list, and where it reports whether one
// existed: the one Remove of every store.
func removing(host string, port uint16) (func([]Rule) []Rule, *bool, error) {
	var target Rule
	if host == PublicHTTPSHost {
		target = PublicHTTPSRule()
		target.Target.Port = port
	} else {
		p, err := capability.ParseHostPattern(host)
		if err != nil {
			return nil, nil, refusal.Newf(refusal.InvalidHost, "rule host %q: %v", safetext.Short(host), err).Wrap(err)
		}
		target = NewRule(Allow, p, port)
	}
	removed := new(bool)
	return func(rules []Rule) []Rule {
		n := len(rules)
		rules = slices.DeleteFunc(rules, func(x Rule) bool { return sameTarget(x, target) })
		*removed = len(rules) != n
		return rules
	}, removed, nil
}

// sameTarget reports whether a and b (both normalised) are for the same
// capability, host pattern and port.
func sameTarget(a, b Rule) bool {
	return a.Capability == b.Capability && a.Target.Host == b.Target.Host && a.Target.Port == b.Target.Port
}

// applyChange applies change to the rules of set (the file at path, as
// just read under its lock) and returns the file to write, or nil when the
// rules did not change: the middle of every store's read-modify-write. A
// result over MaxFileSize is refused with rules_invalid naming path.
func applyChange(path string, set *Set, change func([]Rule) []Rule) ([]byte, error) {
	old := set.Rules()
	rules := change(set.Rules())
	slices.SortStableFunc(rules, compareRules)
	if slices.Equal(old, rules) {
		return nil, nil
	}
	data := encode(rules)
	if len(data) > MaxFileSize {
		return nil, refusal.Newf(refusal.RulesInvalid, "rules file %s would grow to %d bytes (%d rules), over the %d-byte limit; nothing was saved",
			path, len(data), len(rules), MaxFileSize).
			WithHints("remove rules you no longer need (`ocfetch rules list`, `ocfetch rules remove HOST[:PORT]`), or cover subdomains with one \"*.domain\" rule",
				refusal.AskUserToRun("ocfetch rules list")+" and to remove the rules they no longer need")
	}
	return data, nil
}

// update runs one locked read-modify-write cycle of rules.json. It writes
// only if change altered the rules.
func update(ctx context.Context, ws workspace.Workspace, change func([]Rule) []Rule) error {
	path := ws.RulesPath()
	unlock, err := workspace.LockFile(ctx, path)
	if err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	defer unlock()
	set, err := Load(ws)
	if err != nil {
		return err // rules_invalid: refuse to write over what we cannot read
	}
	data, err := applyChange(path, set, change)
	if err != nil || data == nil {
		return err
	}
	if err := workspace.WriteFileAtomic(path, data, filePerm); err != nil {
		return fmt.Errorf("rules: save: %w", err)
	}
	return nil
}
