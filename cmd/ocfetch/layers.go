package main

import (
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/trust"
)

// grantLine is one thing a layer's files grant or restrict, and the file
// that says so: what `ocfetch trust` lists and what `ocfetch explain`
// names in its workspace layer.
type grantLine struct {
	What string `json:"what"`
	File string `json:"file"`
}

// workspaceGrants is the one definition of what the workspace layer's
// files grant (counted only while the workspace is trusted) and restrict
// (always), from trust.ReadGrants: trust and explain both list these
// lines, so one cannot say "grants nothing" while the other refuses a
// grant (policy.Order's LayerWorkspace, NeedsTrust).
func workspaceGrants(g trust.Grants) (grants, restricts []grantLine) {
	if g.Profile != "" {
		grants = append(grants, grantLine{"profile " + string(g.Profile) + " (local mode)", g.SettingsFile})
	}
	if g.Upstream != "" {
		grants = append(grants, grantLine{"upstream_proxy " + safetext.Line(g.Upstream) + " (public connections go through it)", g.SettingsFile})
	}
	if len(g.Ports) > 0 {
		grants = append(grants, grantLine{"loopback ports " + g.Ports.String(), g.LocalFetchFile})
	}
	for _, r := range g.Allow {
		grants = append(grants, grantLine{r.String(), g.RulesFile})
	}
	if g.Strict {
		restricts = append(restricts, grantLine{"profile strict", g.SettingsFile})
	}
	for _, r := range g.Deny {
		restricts = append(restricts, grantLine{r.String(), g.RulesFile})
	}
	return grants, restricts
}
