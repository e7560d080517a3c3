package policy

import (
	"context"
	"net/netip"
	"strings"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/netrange"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

// Front says which front end asks, because the scheme rule differs.
type Front uint8

const (
	// FrontFetchTool is the Fetch tool (CLI get, MCP, library, via the
	// broker): a public host is reached over https only. It is the zero
	// value, the stricter front.
	FrontFetchTool Front = iota
	// FrontProxy is the egress proxy of `ocfetch run` and `ocfetch proxy`:
	// it forwards what a rule covers, port 80 included, since shell tools
	// fetch over http. It never asks: Ask means refused.
	FrontProxy
)

// String returns "fetch" or "proxy".
func (f Front) String() string {
	if f == FrontProxy {
		return "proxy"
	}
	return "fetch"
}

// Args is what [Decide] decides on. It is a struct so that it can grow.
type Args struct {
	// Front is the front end asking. The zero value is the Fetch tool.
	Front Front
	// Origin is the parsed origin (capability.OriginOf, or
	// Requirement.Origin). Its scheme is empty for a target with no URL (a
	// proxy tunnel, another tool's requirement): the scheme rule then does
	// not apply.
	Origin capability.Origin
	// Workspace holds rules.json and local_fetch.json, both read on this
	// call.
	Workspace workspace.Workspace
	// Profile is the resolved risk profile.
	Profile risk.Profile
	// LoadRules reads the workspace's rules for this call. If nil,
	// rules.Load. It must read the file on every call, as rules.Load does
	// (the proxy passes a loader that spares the parse of unchanged bytes,
	// not the read).
	LoadRules func(workspace.Workspace) (*rules.Set, error)
	// ForModel makes the not_approved hints address a model (the MCP
	// server): "ask the user to run: …" instead of the command itself.
	ForModel bool
}

// Decide is the one decision step: may this scheme, host and port be
// reached, and who said so. Every front end calls it — the broker (and then
// its Approver when the result is Ask), the proxy (alone: Ask is refused),
// the MCP server (to know whether the user must be asked) and `ocfetch
// explain`. It sends nothing and resolves nothing; it reads rules.json and,
// for a local host, local_fetch.json on every call (seed 000: no caching,
// so an edit takes effect at once and a deletion closes the door at once).
//
// The order, first refusal wins:
//
//  1. the managed layer (reserved for the managed policy);
//  2. local mode: a target on localhost, 127.0.0.1 or ::1 is admitted by
//     local_fetch.json and the permissive profile (LoopbackPort set), or
//     denied by name — it never falls through to the public path;
//  3. an IP literal that is not a local host must be public (built-in,
//     address_not_public naming the IANA range);
//  4. the scheme rule of the front: the Fetch tool reaches public hosts
//     over https only (https_required); the proxy forwards any scheme a
//     rule covers;
//  5. the rule layers (workspace, then user): a deny from any layer wins;
//     else the first allow;
//  6. built-in: profile strict accepts saved rules only (deny), else Ask.
//
// ctx is for the layers that will do I/O beyond the two small files; Decide
// itself never blocks on the network.
func Decide(ctx context.Context, a Args) Decision {
	_ = ctx
	o := a.Origin
	d := Decision{Target: o.Target}

	// 1. Managed layer: consulted first when present (issue 12).

	// 2. Local mode.
	if o.IsLocal() {
		port, err := localfetch.Admit(o, a.Workspace, a.Profile)
		if err != nil {
			return deny(d, LayerWorkspace, a.Workspace.LocalFetchPath(), "", audit.ByPolicy,
				asRefusal(err, refusal.LocalAllowlistInvalid, "local mode refused "+o.Target.String()))
		}
		d.LoopbackPort = port
	} else if addr, err := netip.ParseAddr(o.Target.Host); err == nil {
		// 3. A non-local IP literal must be public.
		if err := netrange.CheckPublic(addr); err != nil {
			return deny(d, LayerBuiltin, "", "", audit.ByPolicy,
				asRefusal(err, refusal.AddressNotPublic, o.Target.Host+" is not a public address"))
		}
	}

	// 4. The scheme rule.
	if a.Front == FrontFetchTool && o.Scheme == "http" && d.LoopbackPort == 0 {
		return deny(d, LayerBuiltin, "", "", audit.ByPolicy, refusal.Newf(refusal.HTTPSRequired,
			"scheme http is not allowed for %s; public hosts are fetched over https only", o.Target.Host).
			WithHint("use https://"))
	}

	// 5. Rule layers. A deny from any layer wins; the first allow is kept.
	need := capability.Network(o.Target)
	var allow *Decision
	for _, l := range ruleLayers(a) {
		set, err := l.load(a.Workspace)
		if err != nil {
			return deny(d, l.layer, l.file, "", audit.ByPolicy,
				asRefusal(err, refusal.RulesInvalid, "cannot read "+l.file))
		}
		m, ok := set.Decide(need)
		if !ok {
			continue
		}
		text := m.Rule.String()
		if m.Decision == rules.Deny {
			return deny(d, l.layer, l.file, text, audit.ByRule, refusal.Newf(refusal.DeniedByRule,
				"%s is denied by the rule %q in %s", o.Target, text, l.file).
				WithHint("remove the rule with: "+RemoveCommand(strings.TrimPrefix(text, string(rules.Deny)+" "))))
		}
		if allow == nil {
			ok := d
			ok.Result, ok.Layer, ok.File, ok.Rule, ok.DecidedBy = Allow, l.layer, l.file, text, audit.ByRule
			allow = &ok
		}
	}
	if allow != nil {
		return *allow
	}

	// 6. Built-in: nothing covers the target.
	hint := AllowHint(o.Target, a.ForModel)
	if a.Profile == risk.Strict {
		return deny(d, LayerBuiltin, "", "", audit.ByProfile, refusal.Newf(refusal.NotApproved,
			"%s is not covered by a saved rule, and profile strict accepts saved rules only", o.Target).WithHint(hint))
	}
	d.Result, d.Layer = Ask, LayerBuiltin
	d.Refusal = refusal.Newf(refusal.NotApproved, "%s is not covered by a saved rule", o.Target).WithHint(hint)
	return d
}

// ruleLayer is one layer of saved rules and the file it reads.
type ruleLayer struct {
	layer Layer
	file  string
	load  func(workspace.Workspace) (*rules.Set, error)
}

// ruleLayers returns the rule layers in order. The user layer (the user's
// own rules file) is added here after the workspace layer.
func ruleLayers(a Args) [1]ruleLayer {
	load := a.LoadRules
	if load == nil {
		load = rules.Load
	}
	return [1]ruleLayer{{layer: LayerWorkspace, file: a.Workspace.RulesPath(), load: load}}
}

func deny(d Decision, l Layer, file, rule string, by audit.DecidedBy, r *refusal.Error) Decision {
	d.Result, d.Layer, d.File, d.Rule, d.DecidedBy, d.Refusal = Deny, l, file, rule, by, r
	return d
}

// asRefusal returns the refusal in err's chain, or a new one with code and
// the (secret-free) message wrapping err.
func asRefusal(err error, code refusal.Code, msg string) *refusal.Error {
	if r, ok := refusal.As(err); ok {
		return r
	}
	return refusal.New(code, msg).Wrap(err)
}
