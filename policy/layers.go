package policy

import (
	"context"

	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// Layers locate the files of the layers around the workspace (issue 12):
// the administrator's managed policy, the user's trust store and the
// user's own rules. [Decide] checks each of them on every call and reads
// it again whenever it changed (seed 000; see [Decide]), and the trust
// store only lazily, when a workspace grant is about to count.
//
// A nil *Layers, and every nil field, is the platform's place:
// managed.DefaultPath with the platform's administrators,
// os.UserConfigDir()/ocfetch/trust.json and os.UserConfigDir()/ocfetch/
// rules.json. No environment variable of ocfetch moves them; tests and
// embedders set the fields.
type Layers struct {
	// Managed locates the managed policy (managed.Load's options).
	Managed *managed.Options
	// Trust is the user's trust store.
	Trust *trust.Store
	// User is the user's rules file.
	User *rules.Location
}

// TrustStore returns l.Trust, else the platform's store. A nil l is the
// platform's places.
func (l *Layers) TrustStore() (*trust.Store, error) {
	if l != nil && l.Trust != nil {
		return l.Trust, nil
	}
	return trust.Open(nil)
}

// DecidingTrustStore is the trust store as [Decide] asks it on this call:
// [Layers.TrustStore], without the operator's pin (--trust-root) while
// the managed policy, read within the call ctx carries, forbids that flag
// ("allow_trust_flag": false) or cannot be read. What reports trust
// (`ocfetch explain`, the MCP server's instructions) asks this store, so
// that it says what the decision does.
func (l *Layers) DecidingTrustStore(ctx context.Context) (*trust.Store, error) {
	s, err := l.TrustStore()
	if err != nil {
		return nil, err
	}
	mp, err := l.LoadManagedContext(ctx)
	return storeUnder(s, mp, err), nil
}

// storeUnder is s as decisions ask it under the managed policy mp (read
// with error merr): without its pin when mp forbids the operator's flag
// or could not be read.
func storeUnder(s *trust.Store, mp managed.Policy, merr error) *trust.Store {
	if merr != nil || mp.NoTrustFlag {
		return s.Unpinned()
	}
	return s
}

// UserRules returns l.User, else the platform's user rules file.
func (l *Layers) UserRules() (rules.Location, error) {
	if l != nil && l.User != nil {
		return *l.User, nil
	}
	loc, err := rules.UserLocation()
	if err != nil {
		return loc, refusal.Newf(refusal.RulesInvalid, "user rules: %v", err).
			WithHint("set HOME (or, on Windows, AppData) so that ocfetch can find your configuration directory").Wrap(err)
	}
	return loc, nil
}

// ManagedOptions returns l.Managed (nil: the platform's file and
// administrators).
func (l *Layers) ManagedOptions() *managed.Options {
	if l == nil {
		return nil
	}
	return l.Managed
}

// ManagedPath returns the managed policy file l names, else the
// platform's ("" when none can be determined).
func (l *Layers) ManagedPath() string {
	if o := l.ManagedOptions(); o != nil && o.Path != "" {
		return o.Path
	}
	p, _ := managed.DefaultPath()
	return p
}

// LoadManaged reads the managed policy now: the zero Policy when there is
// none, managed_policy_invalid naming the file when it is malformed (the
// caller refuses every call).
func (l *Layers) LoadManaged() (managed.Policy, error) {
	return managed.Load(l.ManagedOptions())
}

// LoadManagedContext is [Layers.LoadManaged] within the call ctx carries
// (see [Decide]): the file is checked once per call.
func (l *Layers) LoadManagedContext(ctx context.Context) (managed.Policy, error) {
	return managed.LoadContext(ctx, l.ManagedOptions())
}

// LayerSpec is one layer of the decision: its name, the files it reads and
// what it may grant and refuse. [Order] is the one list of them, in the
// order [Decide] consults them; `ocfetch explain`, `rules list`, `ocfetch
// trust` and docs/DESIGN.md read it, so that a new layer is added here, to
// its reader and to its tests.
type LayerSpec struct {
	Layer Layer
	// Grants is what the layer may grant; Restricts what it may refuse.
	Grants, Restricts string
	// NeedsTrust: the layer's grants count only in a workspace the user
	// trusts (its restrictions count always).
	NeedsTrust bool
	// HasRules: the layer holds saved rules (rules.json's format).
	HasRules bool
	// Files are the files the layer reads for ws under l.
	Files func(ws workspace.Workspace, l *Layers) []string
}

var order = []LayerSpec{
	{
		Layer: LayerManaged, HasRules: true,
		Grants:    "allow rules",
		Restricts: "deny rules, max_profile, managed_rules_only, allow_once: false, require_sandbox; a malformed file refuses every call",
		Files:     func(_ workspace.Workspace, l *Layers) []string { return []string{l.ManagedPath()} },
	},
	{
		Layer: LayerWorkspace, HasRules: true, NeedsTrust: true,
		Grants:    "profile permissive (settings.json), loopback ports (local_fetch.json), allow rules (rules.json), upstream_proxy (settings.json)",
		Restricts: "deny rules, profile strict",
		Files: func(ws workspace.Workspace, _ *Layers) []string {
			return []string{ws.SettingsPath(), ws.LocalFetchPath(), ws.RulesPath()}
		},
	},
	{
		Layer: LayerUser, HasRules: true,
		Grants:    "allow rules, in every workspace",
		Restricts: "deny rules, in every workspace",
		Files: func(_ workspace.Workspace, l *Layers) []string {
			if loc, err := l.UserRules(); err == nil {
				return []string{loc.Path()}
			}
			return nil
		},
	},
	{
		Layer:     LayerBuiltin,
		Grants:    "nothing: what no layer covers is asked (Ask), or refused where nobody can be asked",
		Restricts: "non-public addresses, https for public hosts (the Fetch tool), profile strict: saved rules only",
		Files:     func(workspace.Workspace, *Layers) []string { return nil },
	},
}

// Order returns the layers in the order Decide consults them. The slice is
// a copy.
func Order() []LayerSpec { return append([]LayerSpec(nil), order...) }

// Spec returns the LayerSpec of layer l.
func Spec(l Layer) (LayerSpec, bool) {
	for _, s := range order {
		if s.Layer == l {
			return s, true
		}
	}
	return LayerSpec{}, false
}
