package explain

import (
	"context"
	"fmt"
	"strings"

	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// LayerState is one layer as explain shows it: its file and what it holds.
type LayerState struct {
	Layer string `json:"layer"`
	File  string `json:"file"`
	// State: "absent", "present", "invalid: …", "trusted", "untrusted".
	State string `json:"state"`
	// Grants (the workspace layer) is what its files grant, as `ocfetch
	// trust` lists it; counted only while the workspace is trusted.
	Grants []trust.GrantLine `json:"grants,omitempty"`
}

// layerStates reads the layers' files as Decide reads them, one state per
// layer of policy.Order that has files: the managed policy, the workspace
// (trusted or not, and what its files grant: [trust.Grants.Lines], the lines
// `ocfetch trust` lists), the user's rules.
func layerStates(ws workspace.Workspace, l *policy.Layers) (*bool, []LayerState) {
	var out []LayerState
	var trusted *bool
	for _, spec := range policy.Order() {
		files := spec.Files(ws, l)
		st := LayerState{Layer: spec.Layer.String(), State: "absent"}
		if len(files) > 0 {
			st.File = files[0]
		}
		switch spec.Layer {
		case policy.LayerManaged:
			if p, err := l.LoadManaged(); err != nil {
				st.State = "invalid: every call is refused"
			} else if p.Present() {
				st.State = fmt.Sprintf("present: max_profile %s, managed_rules_only %v, allow_once %v, require_sandbox %v, allow_public_https %v",
					p.MaxProfile, p.ManagedRulesOnly, !p.NoAllowOnce, p.RequireSandbox, !p.NoPublicHTTPS)
			}
		case policy.LayerWorkspace:
			st.File = ws.Dir()
			trusted, st.State, st.Grants = workspaceState(ws, l, spec)
		case policy.LayerUser:
			if loc, err := l.UserRules(); err == nil {
				if set, err := rules.LoadAt(loc); err != nil {
					st.State = "invalid: every call is refused"
				} else if n := set.Len(); n > 0 {
					st.State = fmt.Sprintf("present: %d rules, in any workspace", n)
				}
			}
		default:
			continue // no files (the built-in layer)
		}
		out = append(out, st)
	}
	return trusted, out
}

// workspaceState is the workspace layer's state: trusted or not, and what
// its files grant (the grants of spec, the layer's description, when they
// cannot be read).
func workspaceState(ws workspace.Workspace, l *policy.Layers, spec policy.LayerSpec) (*bool, string, []trust.GrantLine) {
	var grants []trust.GrantLine
	ignored := "its grants (" + spec.Grants + ") are ignored; its restrictions apply"
	if g, err := trust.ReadGrants(ws); err == nil {
		grants, _ = g.Lines()
		ignored = "its files grant nothing; its restrictions apply"
		if len(grants) > 0 {
			var what []string
			for _, gl := range grants {
				what = append(what, gl.What+" from "+gl.File)
			}
			ignored = "its grants (" + strings.Join(what, "; ") + ") are ignored; its restrictions apply"
		}
	}
	s, err := l.DecidingTrustStore(context.Background())
	if err != nil {
		return nil, "untrusted: the trust store cannot be opened", grants
	}
	st, err := s.Status(ws.Root)
	if err != nil {
		return nil, "untrusted: the trust store " + s.Path() + " cannot be read", grants
	}
	ok := st.Trusted()
	switch note := st.UntrustedNote(); {
	case ok:
		return &ok, "trusted (" + s.Path() + "): its grants and restrictions apply", grants
	case note != "":
		return &ok, "untrusted (it " + note + "): " + ignored, grants
	}
	return &ok, "untrusted: " + ignored, grants
}
