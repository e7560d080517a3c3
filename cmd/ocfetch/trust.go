package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// layerFiles says where the user's and the administrator's files are.
// The zero value is the platform's places (os.UserConfigDir()/ocfetch,
// managed.DefaultPath); only tests set it: no flag or environment
// variable does.
type layerFiles struct {
	// configDir replaces os.UserConfigDir()/ocfetch (trust.json, the
	// user's rules.json).
	configDir string
	// managed replaces the managed policy's path and administrator check.
	managed *managed.Options
}

// trustStore opens the trust store: the one that also trusts
// --trust-root's workspace, when that flag was applied.
func (a *app) trustStore() (*trust.Store, error) {
	if a.pinned != nil {
		return a.pinned, nil
	}
	s, err := trust.Open(&trust.Options{Dir: a.layers.configDir})
	if err != nil {
		return nil, classify(err)
	}
	return s, nil
}

// userRules returns where the user's rules live.
func (a *app) userRules() (rules.Location, error) {
	if a.layers.configDir != "" {
		return rules.Location{Dir: a.layers.configDir, Name: workspace.RulesFile}, nil
	}
	loc, err := rules.UserLocation()
	if err != nil {
		return loc, internalErrorf("%v", err)
	}
	return loc, nil
}

// policyLayers returns the layers policy.Decide reads on every call: the
// managed policy, the trust store and the user's rules, from a.layers (the
// platform's places unless a test set them).
func (a *app) policyLayers() (*policy.Layers, error) {
	s, err := a.trustStore()
	if err != nil {
		return nil, err
	}
	loc, err := a.userRules()
	if err != nil {
		return nil, err
	}
	return &policy.Layers{Managed: a.layers.managed, Trust: s, User: &loc}, nil
}

// managedPolicy loads the administrator's policy (the zero Policy when
// there is none).
func (a *app) managedPolicy() (managed.Policy, error) {
	p, err := managed.Load(a.layers.managed)
	if err != nil {
		return p, classify(err)
	}
	return p, nil
}

// ensureWorkspace is what every command that writes into .oc_chat/ calls
// first: if .oc_chat/ does not exist, ocfetch creates it and trusts the
// workspace (trust.Store.Ensure), and says on stdout what it did
// (trust.Ensured.Line).
func (a *app) ensureWorkspace(ctx context.Context, ws workspace.Workspace, how string) error {
	s, err := a.trustStore()
	if err != nil {
		return err
	}
	e, err := s.Ensure(ctx, ws, how)
	if err != nil {
		return classify(err)
	}
	if line := e.Line(ws); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

// noteUntrusted is the one sentence every command that writes a grant
// (grant: "this rule", "this port", "this profile") into the workspace ws
// prints when ws is not trusted: the grant counts for nothing until it is.
// Nothing when ws is trusted, or the trust store cannot say.
func (a *app) noteUntrusted(ws workspace.Workspace, grant string) {
	if ok, err := a.workspaceTrusted(ws); err == nil && !ok {
		fmt.Fprintf(a.stdout, "note: the workspace is not trusted, so %s is ignored until `%s`\n", grant, trust.Command(ws.Root))
	}
}

// workspaceTrusted reports whether the workspace is trusted; a malformed
// store is a refusal naming it.
func (a *app) workspaceTrusted(ws workspace.Workspace) (bool, error) {
	s, err := a.trustStore()
	if err != nil {
		return false, err
	}
	ok, err := s.Trusted(ws.Root)
	if err != nil {
		return false, classify(err)
	}
	return ok, nil
}

func newTrustCmd(a *app) *cobra.Command {
	var yes, list, revoke, asJSON bool
	cmd := &cobra.Command{
		Use:   "trust [--root DIR] [--yes] | --list | --revoke [--root DIR]",
		Short: "Trust a workspace's own files (its profile, local ports and allow rules), list or revoke",
		Long: `A workspace's .oc_chat/ may come with a clone. What its files grant — a
profile above standard in settings.json, the ports of local_fetch.json, the
allow rules of rules.json — takes effect only once you trust the workspace;
what they restrict (deny rules, profile strict) always does.

ocfetch trust shows what the workspace's files grant and asks (on a
terminal; --yes trusts without asking). Trust is kept in
os.UserConfigDir()/ocfetch/trust.json, keyed by the workspace's real path and
the directory itself (its identity and birth time): a moved, renamed or
re-created directory is no longer trusted, even if it reuses the inode. A workspace whose .oc_chat/ ocfetch itself created (the first
rules allow, local allow or profile set) is trusted then.`,
		Example: `  ocfetch trust
  ocfetch trust --root ~/src/project --yes
  ocfetch trust --list
  ocfetch trust --revoke --root ~/src/project`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case list && revoke:
				return usageErrorf(helpHint(cmd), "--list and --revoke do not go together")
			case list && yes, revoke && yes:
				return usageErrorf(helpHint(cmd), "--yes goes with trusting a workspace only")
			case asJSON && !list:
				return usageErrorf(helpHint(cmd), "--json goes with --list")
			case list:
				return runTrustList(a, asJSON)
			case revoke:
				return runTrustRevoke(cmd.Context(), a)
			}
			return runTrust(cmd.Context(), a, yes)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&yes, "yes", false, "trust without asking")
	f.BoolVar(&list, "list", false, "list the trusted workspaces")
	f.BoolVar(&revoke, "revoke", false, "stop trusting the workspace (--root, else the current directory)")
	f.BoolVar(&asJSON, "json", false, `with --list: print {"file", "workspaces": [{"path", "trusted_at", "how", "state", "trusted", "outdated"}]}`)
	return cmd
}

func runTrust(ctx context.Context, a *app, yes bool) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	s, err := a.trustStore()
	if err != nil {
		return err
	}
	g, err := trust.ReadGrants(ws)
	if err != nil {
		e := classify(err)
		e.hint = "fix the file first: a workspace whose files cannot be read cannot be shown, so it is not trusted"
		return e
	}
	st, err := s.Status(ws.Root)
	if err != nil {
		return classify(err)
	}
	printGrants(a, g)
	if e := st.Entry; st.Trusted() {
		fmt.Fprintf(a.stdout, "unchanged: %s is trusted (since %s, by %s)\n", safetext.Line(e.Path), e.TrustedAt.Format(time.RFC3339), safetext.Line(e.How))
		return nil
	}
	if note := st.UntrustedNote(); note != "" {
		fmt.Fprintf(a.stdout, "note: %s %s\n", safetext.Line(ws.Root), note)
	}
	if !yes {
		if !a.interactive() {
			return refusalError(refusal.Newf(refusal.WorkspaceUntrusted,
				"workspace %s is not trusted, and nobody can be asked here (not a terminal)", safetext.Line(ws.Root)).
				WithHint("read what it grants above, then run `" + trust.Command(ws.Root) + " --yes`"))
		}
		fmt.Fprintf(a.stderr, "Trust %s? [y/N] ", safetext.Line(ws.Root))
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
		default:
			fmt.Fprintf(a.stdout, "not trusted: %s\n", safetext.Line(ws.Root))
			return nil
		}
	}
	if err := sandbox.CheckPolicyWritable(s.Path()); err != nil {
		return classify(err)
	}
	if err := s.Trust(ctx, ws.Root, trust.Details{How: "ocfetch trust"}); err != nil {
		return classify(err)
	}
	fmt.Fprintf(a.stdout, "trusted: %s (in %s)\n", safetext.Line(ws.Root), safetext.Line(s.Path()))
	return nil
}

// printGrants shows what the workspace's files grant and restrict
// ([trust.Grants.Lines], the lines explain names too).
func printGrants(a *app, g trust.Grants) {
	w := a.stdout
	fmt.Fprintf(w, "workspace: %s\n", safetext.Line(g.Workspace))
	grants, restricts := g.Lines()
	// A grant names its file; rules after the first do not, nor does a
	// deny rule (as trust has always printed them).
	print := func(lines []trust.GrantLine, rulesFrom bool) {
		for i, l := range lines {
			rule := l.File == g.RulesFile
			if rule && (!rulesFrom || (i > 0 && lines[i-1].File == g.RulesFile)) {
				fmt.Fprintf(w, "  %s\n", l.What)
			} else {
				fmt.Fprintf(w, "  %s  from %s\n", l.What, safetext.Line(l.File))
			}
		}
	}
	if len(grants) == 0 {
		fmt.Fprintln(w, "its files grant nothing")
	} else {
		fmt.Fprintln(w, "its files grant (only while the workspace is trusted):")
		print(grants, true)
	}
	if len(restricts) > 0 {
		fmt.Fprintln(w, "they restrict (always, trusted or not):")
		print(restricts, false)
	}
}

// trustListJSON is what `trust --list --json` prints.
type trustListJSON struct {
	File       string        `json:"file"`
	Workspaces []trustedJSON `json:"workspaces"`
}

type trustedJSON struct {
	Path      string      `json:"path"`
	TrustedAt time.Time   `json:"trusted_at"`
	How       string      `json:"how"`
	State     trust.State `json:"state"`
	// Trusted: the entry trusts what is at the path now (state present,
	// and not outdated).
	Trusted bool `json:"trusted"`
	// Outdated: an older ocfetch wrote the entry without recording which
	// directory it was; it trusts nothing until `ocfetch trust` again.
	Outdated bool `json:"outdated,omitempty"`
}

func runTrustList(a *app, asJSON bool) error {
	s, err := a.trustStore()
	if err != nil {
		return err
	}
	entries, err := s.List()
	if err != nil {
		return classify(err)
	}
	out := trustListJSON{File: s.Path(), Workspaces: []trustedJSON{}}
	for _, e := range entries {
		st := trust.Status{Found: true, Entry: e, State: e.State()}
		out.Workspaces = append(out.Workspaces, trustedJSON{Path: e.Path, TrustedAt: e.TrustedAt, How: e.How, State: st.State,
			Trusted: st.Trusted(), Outdated: e.Outdated()})
	}
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	if len(entries) == 0 {
		fmt.Fprintf(a.stdout, "no trusted workspaces in %s\n", safetext.Line(out.File))
		return nil
	}
	for _, e := range out.Workspaces {
		note := ""
		switch e.State {
		case trust.Missing:
			note = "  (missing: moved, renamed or deleted; not trusted at a new path)"
		case trust.Replaced:
			note = "  (replaced: another directory is there now, and it is not trusted)"
		case trust.Present:
			if e.Outdated {
				note = "  (outdated: trusted by an older ocfetch, which did not record which directory it was; not trusted until you run `" +
					trust.Command(e.Path) + "` again)"
			}
		}
		fmt.Fprintf(a.stdout, "%s  %s  %s%s\n", safetext.Line(e.Path), e.TrustedAt.Format(time.RFC3339), safetext.Line(e.How), note)
	}
	return nil
}

func runTrustRevoke(ctx context.Context, a *app) error {
	s, err := a.trustStore()
	if err != nil {
		return err
	}
	root := a.rootDir
	if ws, err := a.workspace(); err == nil {
		root = ws.Root
	} else if root == "" {
		return err
	} // else: a deleted workspace's entry is revoked by its path
	if err := sandbox.CheckPolicyWritable(s.Path()); err != nil {
		return classify(err)
	}
	removed, err := s.Revoke(ctx, root)
	if err != nil {
		return classify(err)
	}
	if !removed {
		fmt.Fprintf(a.stdout, "unchanged: %s was not trusted\n", safetext.Line(root))
		return nil
	}
	fmt.Fprintf(a.stdout, "revoked: %s is no longer trusted; its files' grants are ignored\n", safetext.Line(root))
	return nil
}
