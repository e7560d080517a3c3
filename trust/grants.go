package trust

import (
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// Grants is what a workspace's own files grant — what takes effect only
// once the user trusts the workspace — and, for a complete picture, what
// they restrict, which takes effect whether or not it is trusted.
type Grants struct {
	// Workspace is the workspace root the files were read from.
	Workspace string

	// Profile is settings.json's profile when it is above the default
	// ([risk.Permissive]); "" otherwise.
	Profile      risk.Profile
	SettingsFile string
	// Upstream is settings.json's upstream_proxy ("" when none): public
	// connections go through it, a grant like the others (policy.Decide
	// refuses it workspace_untrusted in an untrusted workspace).
	Upstream string
	// Ports are the ports of local_fetch.json (none when it is missing).
	Ports          localfetch.Ports
	LocalFetchFile string
	// Allow are rules.json's allow rules.
	Allow     []rules.Rule
	RulesFile string

	// Restrictions, which apply in any case.

	// Strict: settings.json sets profile strict.
	Strict bool
	// Deny are rules.json's deny rules.
	Deny []rules.Rule
}

// Empty reports whether the files grant nothing.
func (g Grants) Empty() bool {
	return g.Profile == "" && g.Upstream == "" && len(g.Ports) == 0 && len(g.Allow) == 0
}

// GrantLine is one thing a workspace's files grant or restrict, and the
// file that says so: what `ocfetch trust` lists and what `ocfetch explain`
// names in its workspace layer.
type GrantLine struct {
	What string `json:"what"`
	File string `json:"file"`
}

// Lines is the one definition of what the workspace layer's files grant
// (counted only while the workspace is trusted) and restrict (always), as
// lines to show: trust and explain both list these lines, so one cannot
// say "grants nothing" while the other refuses a grant (policy.Order's
// LayerWorkspace, NeedsTrust). A grant's text is safe to show
// (safetext.Line); its File is the path as g names it.
func (g Grants) Lines() (grants, restricts []GrantLine) {
	if g.Profile != "" {
		grants = append(grants, GrantLine{"profile " + string(g.Profile) + " (local mode)", g.SettingsFile})
	}
	if g.Upstream != "" {
		grants = append(grants, GrantLine{"upstream_proxy " + safetext.Line(g.Upstream) + " (public connections go through it)", g.SettingsFile})
	}
	if len(g.Ports) > 0 {
		grants = append(grants, GrantLine{"loopback ports " + g.Ports.String(), g.LocalFetchFile})
	}
	for _, r := range g.Allow {
		grants = append(grants, GrantLine{r.String(), g.RulesFile})
	}
	if g.Strict {
		restricts = append(restricts, GrantLine{"profile strict", g.SettingsFile})
	}
	for _, r := range g.Deny {
		restricts = append(restricts, GrantLine{r.String(), g.RulesFile})
	}
	return grants, restricts
}

// ReadGrants reads the workspace's settings.json, local_fetch.json and
// rules.json with their own readers (risk.ReadSettings, localfetch.ReadAllowedPorts,
// rules.Load) and returns what they grant. A missing file grants nothing;
// a file its reader refuses is that reader's *refusal.Error, naming the
// file: what cannot be read cannot be shown, so it cannot be trusted.
func ReadGrants(ws workspace.Workspace) (Grants, error) {
	g := Grants{
		Workspace:      ws.Root,
		SettingsFile:   ws.SettingsPath(),
		LocalFetchFile: localfetch.AllowlistPath(ws),
		RulesFile:      ws.RulesPath(),
	}
	st, err := risk.ReadSettings(ws)
	if err != nil {
		return g, err
	}
	g.Upstream = st.UpstreamProxy
	switch p := st.Profile; p {
	case risk.Permissive:
		g.Profile = p
	case risk.Strict:
		g.Strict = true
	}
	ports, err := localfetch.ReadAllowedPorts(ws)
	switch refusal.CodeOf(err) {
	case "":
		g.Ports = ports
	case refusal.LocalAllowlistMissing:
	default:
		return g, err
	}
	set, err := rules.Load(ws)
	if err != nil {
		return g, err
	}
	for _, r := range set.Rules() {
		if r.Decision == rules.Allow {
			g.Allow = append(g.Allow, r)
		} else {
			g.Deny = append(g.Deny, r)
		}
	}
	return g, nil
}
