package policy

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/netrange"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
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
	// Profile is the resolved risk profile (risk.Resolve: the flag, else
	// settings.json, else standard).
	Profile risk.Profile
	// ProfileExplicit says Profile was chosen by the user (--profile, an
	// embedder), not read from the workspace's settings.json. A permissive
	// profile read from settings.json is a workspace grant: it counts only
	// in a trusted workspace. The zero value treats Profile as the
	// workspace's, the safe reading.
	ProfileExplicit bool
	// WorkspaceUpstream is the upstream_proxy of the workspace's
	// settings.json when this call would connect through it ("" when there
	// is none, or a flag chose the way out). It is a workspace grant: a
	// public target is refused workspace_untrusted in an untrusted
	// workspace.
	WorkspaceUpstream string
	// Layers locate the managed policy, the trust store and the user's
	// rules. Nil: the platform's places (see [Layers]).
	Layers *Layers
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
// explain`. It sends nothing and resolves nothing; it reads the managed
// policy, rules.json, the user's rules.json and, for a local host,
// local_fetch.json on every call, and the trust store when a workspace
// grant is about to count (seed 000: no caching, so an edit takes effect
// at once and a deletion closes the door at once).
//
// The layers are the managed policy, then the workspace (its grants only
// when the user trusts it), then the user; a deny from any layer wins. The
// order, first refusal wins:
//
//  1. the managed policy: a file that exists but is malformed refuses every
//     call (managed_policy_invalid); its max_profile caps the profile;
//  2. local mode: a target on localhost, 127.0.0.1 or ::1 is admitted by
//     local_fetch.json and the permissive profile (LoopbackPort set), or
//     denied by name — it never falls through to the public path. Local
//     mode needs permissive within max_profile (else
//     managed_policy_forbids) and, since the ports are the workspace's
//     grant, a trusted workspace (else workspace_untrusted, once no layer
//     denies the target);
//  3. an IP literal that is not a local host must be public (built-in,
//     address_not_public naming the IANA range);
//  4. the scheme rule of the front: the Fetch tool reaches public hosts
//     over https only (https_required); the proxy forwards any scheme a
//     rule covers;
//  5. the rule layers — managed, workspace, user: a deny from any layer
//     wins (a workspace's deny counts trusted or not); the workspace's
//     upstream_proxy needs trust; then the first allow in layer order,
//     where a workspace allow counts only in a trusted workspace, and with
//     managed_rules_only only a managed allow counts and nobody is asked;
//     an allow that counted for nothing because the workspace is untrusted
//     is refused workspace_untrusted naming the file and the rule; a
//     layer's open-web rule ("allow *:443", rules.Set.PublicHTTPS) is its
//     least specific allow, for https (the Fetch tool) or a tunnel (the
//     proxy) on port 443 to a host that is not local, and counts for
//     nothing outside the managed layer when the managed policy says
//     allow_public_https: false;
//  6. built-in: profile strict (the workspace's, or max_profile's) accepts
//     saved rules only (deny); allow_once false forbids asking (deny,
//     managed_policy_forbids); else Ask.
//
// Every Deny names its layer and, where there is one, its file.
func Decide(ctx context.Context, a Args) (result Decision) {
	_ = ctx
	o := a.Origin
	d := Decision{Target: o.Target}

	// 1. The managed policy, read on every call.
	mp, err := a.Layers.LoadManaged()
	if err != nil {
		return deny(d, LayerManaged, a.Layers.ManagedPath(), "", audit.ByPolicy,
			asRefusal(err, refusal.ManagedPolicyInvalid, "managed policy invalid; every call is refused"))
	}
	tc := trustCheck{a: &a}

	// 2. Local mode.
	if o.IsLocal() {
		if !mp.Allows(risk.Permissive) {
			// Whatever the profile: no --profile or settings.json can
			// lift the cap, so a hint to set permissive would mislead.
			return deny(d, LayerManaged, mp.File, "", audit.ByPolicy, refusal.Newf(refusal.ManagedPolicyForbids,
				"local mode is off for %s: the managed policy %s caps the profile at %s (max_profile)", o.Target, mp.File, mp.MaxProfile).
				WithHint("ask your administrator; `ocfetch explain` shows the layers"))
		}
		port, err := localfetch.Admit(o, a.Workspace, a.Profile)
		if err != nil {
			return deny(d, LayerWorkspace, a.Workspace.LocalFetchPath(), "", audit.ByPolicy,
				asRefusal(err, refusal.LocalAllowlistInvalid, "local mode refused "+o.Target.String()))
		}
		// Admitted by the workspace's own files — its ports, and its
		// profile unless the user gave it — which count only in a trusted
		// workspace: checked after the deny rules, so that a deny from any
		// layer is what a denied target is told.
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

	// 5. Rule layers. A deny from any layer wins; then the first allow in
	// layer order that counts.
	need := capability.Network(o.Target)
	var allows [3]*Decision
	forbiddenPublic := "" // the file of an open-web rule the managed policy forbids
	for i, l := range ruleLayers(a, mp) {
		set, err := l.load()
		if err != nil {
			return deny(d, l.layer, l.file, "", audit.ByPolicy,
				asRefusal(err, refusal.RulesInvalid, "cannot read "+l.file))
		}
		if set == nil {
			continue
		}
		m, ok := set.Decide(need)
		if !ok {
			// The open-web rule is the layer's least specific allow,
			// after every deny of every layer (the loop goes on).
			pr, has := set.PublicHTTPS()
			if !has || !publicHTTPSApplies(a, o, d) {
				continue
			}
			if mp.NoPublicHTTPS && l.layer != LayerManaged {
				if forbiddenPublic == "" {
					forbiddenPublic = l.file
				}
				continue
			}
			m, ok = rules.Match{Decision: rules.Allow, Rule: pr}, true
		}
		text := m.Rule.String()
		if m.Decision == rules.Deny {
			return deny(d, l.layer, l.file, text, audit.ByRule, refusal.Newf(refusal.DeniedByRule,
				"%s is denied by the rule %q in %s (the %s layer)", o.Target, text, l.file, l.layer).
				WithHint(l.denyHint(strings.TrimPrefix(text, string(rules.Deny)+" "))))
		}
		ok2 := d
		ok2.Result, ok2.Layer, ok2.File, ok2.Rule, ok2.DecidedBy = Allow, l.layer, l.file, text, audit.ByRule
		allows[i] = &ok2
	}
	if d.LoopbackPort != 0 {
		if r := tc.need(a.Workspace.LocalFetchPath(), fmt.Sprintf("port %d", d.LoopbackPort)); r != nil {
			return deny(Decision{Target: o.Target}, LayerWorkspace, tc.file(a.Workspace.LocalFetchPath()), "", audit.ByPolicy, r)
		}
		if !a.ProfileExplicit {
			if r := tc.need(a.Workspace.SettingsPath(), "profile permissive"); r != nil {
				return deny(Decision{Target: o.Target}, LayerWorkspace, tc.file(a.Workspace.SettingsPath()), "", audit.ByPolicy, r)
			}
		}
	}
	if a.WorkspaceUpstream != "" && d.LoopbackPort == 0 {
		if r := tc.need(a.Workspace.SettingsPath(), "upstream_proxy "+a.WorkspaceUpstream); r != nil {
			return deny(d, LayerWorkspace, tc.file(a.Workspace.SettingsPath()), "", audit.ByPolicy, r)
		}
	}
	if mp.ManagedRulesOnly {
		if allows[0] != nil {
			return *allows[0]
		}
		return deny(d, LayerManaged, mp.File, "", audit.ByPolicy, refusal.Newf(refusal.ManagedPolicyForbids,
			"%s is not covered by an allow rule of the managed policy %s, which admits its own rules only (managed_rules_only); nobody is asked", o.Target, mp.File).
			WithHint("ask your administrator to add a rule to "+mp.File))
	}
	var ignored *Decision
	for i, al := range allows {
		if al == nil {
			continue
		}
		if i == 1 {
			if r := tc.need(al.File, al.Rule); r != nil {
				if ignored == nil {
					ig := deny(d, LayerWorkspace, tc.file(al.File), al.Rule, audit.ByPolicy, r)
					ignored = &ig
				}
				continue
			}
		}
		return *al
	}
	if ignored != nil {
		return *ignored
	}

	// 6. Built-in: nothing covers the target.
	hint := AllowHint(o.Target, a.ForModel)
	if forbiddenPublic != "" {
		d.Note = fmt.Sprintf("the open-web rule allow *:443 in %s is ignored: the managed policy %s forbids it (allow_public_https: false)", forbiddenPublic, mp.File)
		defer func() { noted(&result, d.Note) }()
	}
	if a.Profile != risk.Strict && mp.Cap(a.Profile) == risk.Strict {
		return deny(d, LayerManaged, mp.File, "", audit.ByProfile, refusal.Newf(refusal.NotApproved,
			"%s is not covered by a saved rule, and the managed policy %s caps the profile at strict (max_profile): saved rules only", o.Target, mp.File).WithHint(hint))
	}
	if a.Profile == risk.Strict {
		return deny(d, LayerBuiltin, "", "", audit.ByProfile, refusal.Newf(refusal.NotApproved,
			"%s is not covered by a saved rule, and profile strict accepts saved rules only", o.Target).WithHint(hint))
	}
	if mp.NoAllowOnce {
		return deny(d, LayerManaged, mp.File, "", audit.ByPolicy, refusal.Newf(refusal.ManagedPolicyForbids,
			"%s is not covered by a saved rule, and the managed policy %s forbids approving a call (allow_once: false): no --yes, no once or always answer", o.Target, mp.File).WithHint(hint))
	}
	d.Result, d.Layer = Ask, LayerBuiltin
	d.Refusal = refusal.Newf(refusal.NotApproved, "%s is not covered by a saved rule", o.Target).WithHint(hint)
	return d
}

// publicHTTPSApplies reports whether the open-web rule ("allow *:443")
// covers origin o: port 443, not a local host (local mode never comes
// from it), and https for the Fetch tool, a tunnel (no scheme) for the
// proxy — never a forwarded http request. A non-public IP literal never
// gets here (step 3), and a name's addresses are checked by the egress
// guard at dial time, so "public" is kept where it can only be kept.
func publicHTTPSApplies(a Args, o capability.Origin, d Decision) bool {
	if o.Target.Port != rules.PublicHTTPSPort || o.IsLocal() || d.LoopbackPort != 0 {
		return false
	}
	if a.Front == FrontProxy {
		return o.Scheme == ""
	}
	return o.Scheme == "https"
}

// trustCheck asks the trust store, at most once per decision and only when
// a workspace grant is about to count.
type trustCheck struct {
	a       *Args
	done    bool
	trusted bool
	status  trust.Status   // why not, when the store has an entry
	err     *refusal.Error // the store cannot be read: nothing is trusted
	store   string
}

// need returns nil when the workspace is trusted, else the
// workspace_untrusted refusal for grant in file.
func (c *trustCheck) need(file, grant string) *refusal.Error {
	if !c.done {
		c.done = true
		s, err := c.a.Layers.TrustStore()
		if err == nil {
			c.store = s.Path()
			c.status, err = s.Status(c.a.Workspace.Root)
			c.trusted = c.status.Trusted()
		}
		if err != nil {
			c.trusted = false
			c.err = asRefusal(err, refusal.WorkspaceUntrusted, "the trust store cannot be read; no workspace is trusted")
		}
	}
	switch {
	case c.trusted:
		return nil
	case c.err != nil:
		return c.err
	}
	return c.status.Refusal(c.a.Workspace.Root, file, grant)
}

// file is the file a trust refusal names: the trust store when it is the
// cause, else the workspace file whose grant was ignored.
func (c *trustCheck) file(grantFile string) string {
	if c.err != nil && c.store != "" {
		return c.store
	}
	return grantFile
}

// ruleLayer is one layer of saved rules and the file it reads.
type ruleLayer struct {
	layer Layer
	file  string
	load  func() (*rules.Set, error)
}

func (l ruleLayer) denyHint(target string) string {
	switch l.layer {
	case LayerManaged:
		return "the administrator's policy decides this; ask your administrator"
	case LayerUser:
		return "remove the rule with: " + RemoveUserCommand(target)
	}
	return "remove the rule with: " + RemoveCommand(target)
}

// ruleLayers returns the rule layers in order: the managed policy's rules
// (already read), the workspace's rules.json, the user's rules.json.
func ruleLayers(a Args, mp managed.Policy) [3]ruleLayer {
	load := a.LoadRules
	if load == nil {
		load = rules.Load
	}
	ws := a.Workspace
	user := ruleLayer{layer: LayerUser, load: func() (*rules.Set, error) { return nil, nil }}
	if loc, err := a.Layers.UserRules(); err != nil {
		user.load = func() (*rules.Set, error) { return nil, err }
	} else {
		user.file = loc.Path()
		user.load = func() (*rules.Set, error) { return rules.LoadAt(loc) }
	}
	return [3]ruleLayer{
		{layer: LayerManaged, file: mp.File, load: func() (*rules.Set, error) { return mp.Rules, nil }},
		{layer: LayerWorkspace, file: ws.RulesPath(), load: func() (*rules.Set, error) { return load(ws) }},
		user,
	}
}

// noted adds note to the refusal of d (Ask or Deny), so that whoever
// reports it says why a rule the user saved did not count.
func noted(d *Decision, note string) {
	if d.Refusal != nil && note != "" {
		r := *d.Refusal
		r.Message += "; " + note
		d.Refusal = &r
	}
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
