package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/securefile"
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
	// ProfileFile is the file Profile was read from (the workspace's
	// settings.json), "" when it came from a flag, an embedder or the
	// default: the file a local_profile_not_permissive refusal names.
	ProfileFile string
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
	// ForModel makes the hints address a model (the MCP server): a hint
	// that names an ocfetch command (not_approved, a deny rule's, local
	// mode's, a broken file's) says "ask the user to run: …"
	// (refusal.AskUserToRun) instead of handing the model the command.
	ForModel bool
	// Logger receives seed 000's per-decision detail of local mode at
	// diag.L3, in domain LOCAL: the target, local_fetch.json and the ports
	// it admitted on this call (never the path or query). Nil: none. The
	// front end's own line says the decision (L2).
	Logger *slog.Logger
	// Trace makes the Decision carry its trace (Decision.Trace): which
	// checks and layers were consulted and what each said. `ocfetch
	// explain` prints it; the other front ends leave it off (it costs an
	// allocation per decision).
	Trace bool
}

// logLocal writes the L3 line of a local-mode decision (Args.Logger): the
// ports are named when Admit read the file, that is when it admitted the
// port or refused it as not listed.
func logLocal(ctx context.Context, a Args, t capability.Target, port uint16, err error) {
	attrs := []any{"target", t.String(), "file", a.Workspace.LocalFetchPath()}
	code := refusal.CodeOf(err)
	if err == nil || code == refusal.LocalPortNotAllowed {
		if ports, perr := localfetch.ReadAllowedPortsContext(ctx, a.Workspace); perr == nil {
			attrs = append(attrs, "ports", ports.String())
		}
	}
	if err == nil {
		attrs = append(attrs, "admitted", port)
	} else {
		attrs = append(attrs, "reason", string(code))
	}
	diag.For(a.Logger, diag.DomainLocal).Log(ctx, diag.L3, "local mode", attrs...)
}

// Decide is the one decision step: may this scheme, host and port be
// reached, and who said so. Every front end calls it — the broker (and then
// its Approver when the result is Ask), the proxy (alone: Ask is refused),
// the MCP server (to know whether the user must be asked) and `ocfetch
// explain`. It sends nothing and resolves nothing; it reads the managed
// policy, rules.json, the user's rules.json and, for a local host,
// local_fetch.json on every call, and the trust store when a workspace
// grant is about to count (seed 000: an edit takes effect at once and a
// deletion closes the door at once). "Reads" means: where the kernel
// reports changes (Linux, a local file system: [securefile.Stamp]), one
// epoll_wait(2) per call and nothing else while no file or directory on
// the files' paths changed; elsewhere one fstatat of each file under its
// directory's open descriptor and one lstat of each directory per call;
// and a new read and parse whenever either says it changed
// ([securefile.Cache] behind each reader). A call is the one ctx carries
// ([securefile.WithCall]: the broker's, the MCP server's), whose every
// step — this decision, the fetch — uses the files as the call first
// checked them; without one, this decision is the call. A redirect hop is
// a new call (the broker decides it in a Call of its own), so a change made
// while the chain runs stops it at the next hop.
//
// The layers are [Order]'s; the order of the checks, first refusal wins,
// is stated once, in docs/DESIGN.md ("The decision"): the managed policy,
// local mode (localfetch.Admit), the address of an IP literal, the front's
// scheme rule, the rule layers (a deny from any layer wins; a workspace
// grant counts only when trusted; a layer's open-web rule "allow *:443" is
// its least specific allow, for https or a tunnel to port 443 of a host
// that is not local, and counts only in the managed layer when the managed
// policy says allow_public_https: false), then built-in (strict,
// allow_once, Ask).
//
// Every Deny names its layer and, where there is one, its file.
func Decide(ctx context.Context, a Args) (result Decision) {
	// One check of each file and directory per call: the broker's call,
	// when ctx carries one (every step of it decides on the same
	// snapshot), else this decision's.
	if securefile.CallFrom(ctx) == nil {
		s := securefile.Borrow(ctx)
		defer s.Release()
		ctx = s
	}
	var tr *[]Step
	if a.Trace {
		tr = new([]Step)
	}
	d := decide(ctx, a, tr)
	if tr != nil {
		d.Trace = *tr
	}
	if a.ForModel {
		// A hint that names an ocfetch command asks the user to run it.
		d.Refusal = d.Refusal.ForModel()
	}
	return d
}

// step records one step of the trace (tr nil: no trace).
func step(tr *[]Step, l Layer, check, file, said string) {
	if tr != nil {
		*tr = append(*tr, Step{Layer: l, Check: check, File: file, Said: said})
	}
}

func decide(ctx context.Context, a Args, tr *[]Step) (result Decision) {
	o := a.Origin
	d := Decision{Target: o.Target}

	// 1. The managed policy, read on every call.
	mp, err := a.Layers.LoadManagedContext(ctx)
	if tr != nil {
		switch {
		case err != nil:
			step(tr, LayerManaged, "policy", a.Layers.ManagedPath(), "invalid: every call is refused")
		case mp.Present():
			step(tr, LayerManaged, "policy", mp.File, fmt.Sprintf("present: max_profile %s", mp.MaxProfile))
		default:
			step(tr, LayerManaged, "policy", a.Layers.ManagedPath(), "absent")
		}
	}
	if err != nil {
		return deny(d, LayerManaged, a.Layers.ManagedPath(), "", audit.ByPolicy,
			asRefusal(err, refusal.ManagedPolicyInvalid, "managed policy invalid; every call is refused"))
	}
	tc := trustCheck{ctx: ctx, layers: a.Layers, root: a.Workspace.Root, managed: mp}
	defer func() {
		if tc.trusted && tc.status.Pinned {
			result.TrustedBy = audit.TrustedByTrustRoot
		}
	}()

	// 2. Local mode.
	if o.IsLocal() {
		if !mp.Allows(risk.Permissive) {
			// Whatever the profile: no --profile or settings.json can
			// lift the cap, so a hint to set permissive would mislead.
			return deny(d, LayerManaged, mp.File, "", audit.ByPolicy, refusal.Newf(refusal.ManagedPolicyForbids,
				"local mode is off for %s: the managed policy %s caps the profile at %s (max_profile)", o.Target, mp.File, mp.MaxProfile).
				WithHints("ask your administrator; `ocfetch explain` shows the layers",
					"only an administrator can change the managed policy; to see the layers, "+refusal.AskUserToRun("ocfetch explain")))
		}
		port, err := localfetch.AdmitContext(ctx, o, a.Workspace, a.Profile)
		if diag.Enabled(ctx, a.Logger, diag.L3) {
			logLocal(ctx, a, o.Target, port, err)
		}
		// The file that decided: local_fetch.json, or for a profile that
		// is not permissive the profile's own (settings.json, or none
		// for a flag's or the default).
		file := a.Workspace.LocalFetchPath()
		if refusal.CodeOf(err) == refusal.LocalProfileNotPermissive {
			file = a.ProfileFile
		}
		if tr != nil {
			st := Step{Layer: LayerWorkspace, Check: CheckLocal, File: file, Port: port, Said: fmt.Sprintf("admits port %d", port)}
			if err != nil {
				st.Refusal = asRefusal(err, refusal.LocalAllowlistInvalid, "local mode refused "+o.Target.String())
				st.Said = "refuses: " + string(st.Refusal.Code)
			}
			*tr = append(*tr, st)
		}
		if err != nil {
			return deny(d, LayerWorkspace, file, "", audit.ByPolicy,
				asRefusal(err, refusal.LocalAllowlistInvalid, "local mode refused "+o.Target.String()))
		}
		// Admitted by the workspace's own files — its ports, and its
		// profile unless the user gave it — which count only in a trusted
		// workspace: checked after the deny rules, so that a deny from any
		// layer is what a denied target is told.
		d.LoopbackPort = port
	} else if addr, err := parseAddr(o.Target.Host()); err == nil {
		// 3. A non-local IP literal must be public.
		err := netrange.CheckPublic(addr)
		if tr != nil {
			st := Step{Layer: LayerBuiltin, Check: CheckAddress, Said: "public"}
			if r, bad := netrange.NonPublicRange(addr); bad {
				st.Range = r.String()
				st.Said = "in " + st.Range
			}
			*tr = append(*tr, st)
		}
		if err != nil {
			return deny(d, LayerBuiltin, "", "", audit.ByPolicy,
				asRefusal(err, refusal.AddressNotPublic, o.Target.Host()+" is not a public address"))
		}
	}

	// 4. The scheme rule.
	if a.Front == FrontFetchTool && o.Scheme == "http" && d.LoopbackPort == 0 {
		return deny(d, LayerBuiltin, "", "", audit.ByPolicy, refusal.Newf(refusal.HTTPSRequired,
			"scheme http is not allowed for %s; public hosts are fetched over https only", o.Target.Host()).
			WithHint("use https://"))
	}

	// 5. Rule layers. A deny from any layer wins; then the first allow in
	// layer order that counts.
	need := capability.Network(o.Target)
	var lbuf [4]ruleLayer
	var allows [4]Decision // allows[i].Result == Allow: layer i allows
	layers := ruleLayers(lbuf[:0], a, mp)
	forbiddenPublic := "" // the file of an open-web rule the managed policy forbids
	for i, l := range layers {
		set, err := l.load(ctx, a, mp)
		if tr != nil {
			switch {
			case err != nil:
				step(tr, l.layer, "rules", l.file, "invalid")
			case set == nil:
				step(tr, l.layer, "rules", l.file, "absent")
			}
		}
		if err != nil {
			return deny(d, l.layer, l.file, "", audit.ByPolicy,
				asRefusal(err, refusal.RulesInvalid, "cannot read "+l.file))
		}
		if set == nil {
			continue
		}
		m, text, ok := set.DecideText(need)
		if !ok {
			// The open-web rule is the layer's least specific allow,
			// after every deny of every layer (the loop goes on).
			pr, prText, has := set.PublicHTTPSText()
			if !has || !publicHTTPSApplies(a, o, d) {
				step(tr, l.layer, "rules", l.file, "no rule covers the target")
				continue
			}
			if mp.NoPublicHTTPS && l.layer != LayerManaged {
				if forbiddenPublic == "" {
					forbiddenPublic = l.file
				}
				step(tr, l.layer, "rules", l.file, "allow *:443 ignored: the managed policy forbids it (allow_public_https: false)")
				continue
			}
			m, text = rules.Match{Decision: rules.Allow, Rule: pr}, prText
		}
		step(tr, l.layer, "rules", l.file, text)
		if m.Decision == rules.Deny {
			rt := strings.TrimPrefix(text, string(rules.Deny)+" ")
			return deny(d, l.layer, l.file, text, audit.ByRule, refusal.Newf(refusal.DeniedByRule,
				"%s is denied by the rule %q in %s (the %s layer)", o.Target, text, l.file, l.layer).
				WithHints(l.denyHint(rt, false), l.denyHint(rt, true)))
		}
		ok2 := d
		ok2.Result, ok2.Layer, ok2.File, ok2.Rule, ok2.DecidedBy = Allow, l.layer, l.file, text, audit.ByRule
		allows[i] = ok2
	}
	if d.LoopbackPort != 0 {
		if r := tc.need(grant{port: d.LoopbackPort}, a.Workspace.LocalFetchPath); r != nil {
			return deny(Decision{Target: o.Target}, LayerWorkspace, tc.file(a.Workspace.LocalFetchPath()), "", audit.ByPolicy, r)
		}
		if !a.ProfileExplicit {
			if r := tc.need(grant{text: "profile permissive"}, a.Workspace.SettingsPath); r != nil {
				return deny(Decision{Target: o.Target}, LayerWorkspace, tc.file(a.Workspace.SettingsPath()), "", audit.ByPolicy, r)
			}
		}
	}
	if a.WorkspaceUpstream != "" && d.LoopbackPort == 0 {
		if r := tc.need(grant{prefix: "upstream_proxy ", text: a.WorkspaceUpstream}, a.Workspace.SettingsPath); r != nil {
			return deny(d, LayerWorkspace, tc.file(a.Workspace.SettingsPath()), "", audit.ByPolicy, r)
		}
	}
	if mp.ManagedRulesOnly {
		if allows[0].Result == Allow {
			return allows[0]
		}
		return deny(d, LayerManaged, mp.File, "", audit.ByPolicy, refusal.Newf(refusal.ManagedPolicyForbids,
			"%s is not covered by an allow rule of the managed policy %s, which admits its own rules only (managed_rules_only); nobody is asked", o.Target, mp.File).
			WithHints("ask your administrator to add a rule to "+mp.File,
				"only an administrator can add a rule to the managed policy: do not retry it; tell the user if they need it"))
	}
	var ignored *Decision
	for i := range layers {
		al := &allows[i]
		if al.Result != Allow {
			continue
		}
		if layers[i].needsTrust {
			if r := tc.need(grant{text: al.Rule}, func() string { return al.File }); r != nil {
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
	step(tr, LayerBuiltin, "profile", "", "nothing covers the target: ask")
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
	if o.Target.Port() != rules.PublicHTTPSPort || o.IsLocal() || d.LoopbackPort != 0 {
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
	ctx     context.Context
	layers  *Layers
	root    string
	done    bool
	trusted bool
	status  trust.Status   // why not, when the store has an entry
	err     *refusal.Error // the store cannot be read: nothing is trusted
	store   string
	// managed is the managed policy read on this call: where it forbids
	// the operator's --trust-root ("allow_trust_flag": false), only the
	// store's entries trust, whatever the process was started with
	// (storeUnder).
	managed managed.Policy
}

// need returns nil when the workspace is trusted, else the
// workspace_untrusted refusal for grant in file(). file is asked only for
// a refusal: a trusted workspace's decision joins no path.
func (c *trustCheck) need(g grant, file func() string) *refusal.Error {
	if !c.done {
		c.done = true
		s, err := c.layers.TrustStore()
		if err == nil {
			s = storeUnder(s, c.managed, nil)
			c.store = s.Path()
			c.status, err = s.StatusContext(c.ctx, c.root)
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
	return c.status.Refusal(c.root, file(), g.String())
}

// grant is what a workspace file grants, put into words only for a
// refusal: "port N", or prefix and text.
type grant struct {
	port         uint16
	prefix, text string
}

func (g grant) String() string {
	if g.port != 0 {
		return "port " + strconv.Itoa(int(g.port))
	}
	return g.prefix + g.text
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
	layer      Layer
	needsTrust bool
	file       string
	user       rules.Location // LayerUser's file
	err        error          // LayerUser: no user rules file can be located
}

// load reads the layer's rules for this call.
func (l *ruleLayer) load(ctx context.Context, a Args, mp managed.Policy) (*rules.Set, error) {
	switch l.layer {
	case LayerManaged:
		return mp.Rules, nil
	case LayerWorkspace:
		if a.Workspace.Root == "" {
			// No workspace (an embedder's zero Workspace): no workspace
			// rules, never those of the process's current directory.
			return nil, nil
		}
		if !filepath.IsAbs(l.file) {
			// A relative root: the path would be read relative to the
			// process's current directory, whichever project that is
			// (local mode refuses such a workspace the same way).
			return nil, refusal.Newf(refusal.RulesInvalid, "rules file %s is not an absolute path: the workspace root is relative", l.file).
				WithHint("resolve the workspace root to an absolute path (--root, workspace.Resolve) before deciding")
		}
		if a.LoadRules != nil {
			return a.LoadRules(a.Workspace)
		}
		return rules.LoadPathContext(ctx, l.file) // rules.RulesPath(a.Workspace), looked up once
	case LayerUser:
		if l.err != nil {
			return nil, l.err
		}
		return rules.LoadAtContext(ctx, l.user)
	}
	panic("policy: no reader for layer " + l.layer.String())
}

// denyHint is the hint of a deny rule of l on target, for a person or
// (forModel) a model. A deny rule is the user's (or the administrator's)
// standing answer, so a model is told what it is told when the user
// declines a question — do not retry, do not lobby for a rule — and only
// then the command that lifts it, for the user to run.
func (l ruleLayer) denyHint(target string, forModel bool) string {
	cmd := RemoveCommand(target)
	switch l.layer {
	case LayerManaged:
		if forModel {
			return "the administrator's policy denies this target and only an administrator can change it: do not retry it"
		}
		return "the administrator's policy decides this; ask your administrator"
	case LayerUser:
		cmd = RemoveUserCommand(target)
	}
	if forModel {
		return "the user denies this target with a saved rule: do not retry it or ask to lift the rule unless the user brings it up; to lift it, " + refusal.AskUserToRun(cmd)
	}
	return "remove the rule with: " + cmd
}

// ruleLayers returns the layers of [Order] that hold saved rules, in
// order, each with its reader: the managed policy's rules (already read),
// the workspace's rules.json, the user's rules.json.
func ruleLayers(out []ruleLayer, a Args, mp managed.Policy) []ruleLayer {
	for _, spec := range order {
		if !spec.HasRules {
			continue
		}
		l := ruleLayer{layer: spec.Layer, needsTrust: spec.NeedsTrust}
		switch spec.Layer {
		case LayerManaged:
			l.file = mp.File
		case LayerWorkspace:
			l.file = rules.RulesPath(a.Workspace)
		case LayerUser:
			if loc, err := a.Layers.UserRules(); err != nil {
				l.err = err
			} else {
				l.file, l.user = loc.Path(), loc // remembered
			}
		default:
			panic("policy: no reader for layer " + spec.Layer.String())
		}
		out = append(out, l)
	}
	return out
}

// errNotIP is parseAddr's answer for a host that cannot be an address.
var errNotIP = errors.New("not an IP address")

// parseAddr is netip.ParseAddr for a host that may be an IP literal (it
// begins with a digit or holds a colon); any other host is a name, told
// without building ParseAddr's error.
func parseAddr(host string) (netip.Addr, error) {
	if host == "" || (host[0] < '0' || host[0] > '9') && !strings.Contains(host, ":") {
		return netip.Addr{}, errNotIP
	}
	return netip.ParseAddr(host)
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
