package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/shellrun"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func newRulesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List, add and remove the saved network rules of the workspace",
		Long: `Saved rules live in .oc_chat/rules.json (the workspace's) and, with --user,
in os.UserConfigDir()/ocfetch/rules.json (yours, in every workspace). A rule
allows or denies one host (or every subdomain, with *.example.com; never a
public suffix such as *.co.uk) on one port (443 when none is given). A deny
rule from any layer wins over every allow rule, and over --yes. A workspace's
allow rules count only while the workspace is trusted (ocfetch trust); an
administrator's managed policy comes before both.

A URL is read as the host and port it reaches: http://example.com/ is
example.com:80, https://example.com/docs is example.com:443 (a rule covers
the whole host and port, never a path). An allow rule for an address the
egress guard always refuses (10.0.0.1, 169.254.169.254, fd00::1, …) is
refused, naming the range: no rule can reach it.`,
		Example: `  ocfetch rules list
  ocfetch rules allow example.com
  ocfetch rules allow '*.example.com:8443'
  ocfetch rules deny tracker.example
  ocfetch rules allow --user docs.example.org
  ocfetch rules remove example.com:443`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRun,
	}
	cmd.AddCommand(newRulesListCmd(a), newRulesSetCmd(a, rules.Allow), newRulesSetCmd(a, rules.Deny), newRulesRemoveCmd(a))
	return cmd
}

// ruleJSON is one rule in `rules list --json`.
type ruleJSON struct {
	Decision rules.Decision `json:"decision"`
	Host     string         `json:"host"`
	Port     uint16         `json:"port"`
	// Layer is "managed", "workspace" or "user"; File the file it is in.
	Layer string `json:"layer"`
	File  string `json:"file"`
}

// rulesListJSON is the object `rules list --json` prints. File is the
// workspace's rules file, as before the layers.
type rulesListJSON struct {
	File        string     `json:"file"`
	UserFile    string     `json:"user_file"`
	ManagedFile string     `json:"managed_file,omitempty"`
	Trusted     bool       `json:"trusted"`
	Rules       []ruleJSON `json:"rules"`
}

// The layers, as `rules list` names them: policy's names (policy.Order).
var (
	layerManaged   = policy.LayerManaged.String()
	layerWorkspace = policy.LayerWorkspace.String()
	layerUser      = policy.LayerUser.String()
)

func newRulesListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved rules of every layer (layer, decision, host, port)",
		Example: `  ocfetch rules list
  ocfetch rules list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRulesList(cmd.Context(), a, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"file", "user_file", "managed_file", "trusted", "rules": [{"decision", "host", "port", "layer", "file"}]}`)
	return cmd
}

func runRulesList(_ context.Context, a *app, asJSON bool) error {
	ws, set, err := a.savedRules()
	if err != nil {
		return err
	}
	trusted, err := a.workspaceTrusted(ws)
	if err != nil {
		return err
	}
	m, err := a.managedPolicy()
	if err != nil {
		return err
	}
	loc, err := a.userRules()
	if err != nil {
		return err
	}
	user, err := rules.LoadAt(loc)
	if err != nil {
		return classify(err)
	}
	out := rulesListJSON{File: ws.RulesPath(), UserFile: loc.Path(), ManagedFile: m.File, Trusted: trusted, Rules: []ruleJSON{}}
	add := func(layer, file string, s *rules.Set) {
		for _, r := range s.Rules() {
			out.Rules = append(out.Rules, ruleJSON{Decision: r.Decision, Host: r.Target.Host, Port: r.Target.Port, Layer: layer, File: file})
		}
	}
	add(layerManaged, m.File, m.Rules)
	add(layerWorkspace, ws.RulesPath(), set)
	add(layerUser, loc.Path(), user)
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	if len(out.Rules) == 0 {
		fmt.Fprintf(a.stdout, "no rules in %s or %s\n", safetext.Line(out.File), safetext.Line(out.UserFile))
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LAYER\tDECISION\tHOST\tPORT")
	ignored := 0
	for _, r := range out.Rules {
		layer := r.Layer
		if r.Layer == layerWorkspace && r.Decision == rules.Allow && !trusted {
			layer += " (ignored)"
			ignored++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", layer, r.Decision, r.Host, r.Port)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if ignored > 0 {
		fmt.Fprintf(a.stdout, "note: the workspace is not trusted: its allow rules are ignored until `%s`\n", trust.Command(ws.Root))
	}
	if m.ManagedRulesOnly {
		fmt.Fprintf(a.stdout, "note: the managed policy %s admits its own allow rules only\n", safetext.Line(m.File))
	}
	return nil
}

func newRulesSetCmd(a *app, d rules.Decision) *cobra.Command {
	verb := "Allow"
	if d == rules.Deny {
		verb = "Deny"
	}
	var user, public bool
	var fromRun string
	use := string(d) + " [--user] HOST[:PORT]"
	example := fmt.Sprintf(`  ocfetch rules %[1]s example.com
  ocfetch rules %[1]s api.example.com:8443
  ocfetch rules %[1]s '*.example.com'
  ocfetch rules %[1]s '[2606:4700::1111]:443'
  ocfetch rules %[1]s --user example.org
  ocfetch rules %[1]s http://example.com/   # a URL: its host and port (80 for http, 443 for https)`, d)
	if d == rules.Allow {
		use = "allow [--user] HOST[:PORT] | --public-https | --from-run RUN_ID"
		example += `
  ocfetch rules allow --public-https        # the open web: every public host over https, unasked
  ocfetch rules allow --from-run 0b6f…      # what ocfetch run --report listed`
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   verb + " a host (or *.domain) on a port, 443 when none is given",
		Example: example,
		Args: func(cmd *cobra.Command, args []string) error {
			if public && fromRun != "" {
				return usageErrorf(helpHint(cmd), "--public-https and --from-run cannot be combined")
			}
			if (public || fromRun != "") && len(args) > 0 {
				flag := "--public-https"
				if fromRun != "" {
					flag = "--from-run"
				}
				return usageErrorf(helpHint(cmd), "%s takes no HOST[:PORT]; %d given", flag, len(args))
			}
			if public || fromRun != "" {
				return nil
			}
			return exactArgs("HOST[:PORT]")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case public:
				return runRulesPublic(cmd.Context(), a, user)
			case fromRun != "":
				return runRulesFromRun(cmd.Context(), a, fromRun, user)
			}
			return runRulesSet(cmd.Context(), a, d, args[0], user)
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "save it in your rules (os.UserConfigDir()/ocfetch/rules.json), for every workspace")
	if d == rules.Allow {
		cmd.Flags().BoolVar(&public, "public-https", false, "save the open-web rule \"allow *:443\": every public host over https (get, MCP) and every CONNECT to port 443 (the proxy), without asking. "+
			"Deny rules still win; private, loopback and special-purpose addresses stay refused by the egress guard at dial time; a managed policy can forbid it (allow_public_https: false)")
		cmd.Flags().StringVar(&fromRun, "from-run", "", "allow every host:port the `RUN_ID` of ocfetch run was refused not_approved (from the audit log; run --report prints the id), after listing them")
	}
	return cmd
}

// runRulesFromRun saves an allow rule for exactly the targets the run
// runID was refused not_approved (its audit lines), after listing them.
func runRulesFromRun(ctx context.Context, a *app, runID string, user bool) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	refused, err := shellrun.Refusals(ws, runID)
	if err != nil {
		return classify(err)
	}
	if len(refused) == 0 {
		return usageErrorf("ocfetch run --report prints the id of a run; ocfetch audit --json shows run_id",
			"no refusal of run %s in %s", safetext.Short(runID), ws.AuditPath())
	}
	targets := shellrun.Allowable(refused)
	if len(targets) == 0 {
		fmt.Fprintf(a.stdout, "unchanged: run %s was refused nothing a rule would admit\n", safetext.Line(runID))
		return nil
	}
	st, err := a.ruleStore(ctx, user, "ocfetch rules allow --from-run")
	if err != nil {
		return err
	}
	noun := "targets"
	if len(targets) == 1 {
		noun = "target"
	}
	fmt.Fprintf(a.stdout, "run %s was refused %d %s a rule admits:\n", safetext.Line(runID), len(targets), noun)
	for _, t := range targets {
		fmt.Fprintf(a.stdout, "  %s\n", safetext.Line(t.String()))
	}
	for _, t := range targets {
		rule := rules.NewRule(rules.Allow, capability.HostPattern{Host: t.Host()}, t.Port())
		if err := st.add(ctx, rule); err != nil {
			return classify(err)
		}
		fmt.Fprintf(a.stdout, "added: %s to %s\n", rule, st.path)
	}
	st.noteUntrusted(a, "these rules")
	return nil
}

// runRulesPublic saves the open-web rule, "allow *:443", and says what it
// does and does not admit.
func runRulesPublic(ctx context.Context, a *app, user bool) error {
	m, err := a.managedPolicy()
	if err != nil {
		return err
	}
	if m.NoPublicHTTPS {
		return refusalError(refusal.Newf(refusal.ManagedPolicyForbids,
			"the managed policy %s forbids the open-web rule (allow_public_https: false); it would count for nothing", m.File).
			WithHint("allow the hosts you need one by one: ocfetch rules allow HOST"))
	}
	st, err := a.ruleStore(ctx, user, "ocfetch rules allow --public-https")
	if err != nil {
		return err
	}
	set, err := st.load()
	if err != nil {
		return classify(err)
	}
	rule := rules.PublicHTTPSRule()
	if _, ok := set.PublicHTTPS(); ok {
		fmt.Fprintf(a.stdout, "unchanged: %s is already in %s\n", rule, st.path)
		return nil
	}
	if err := st.add(ctx, rule); err != nil {
		return classify(err)
	}
	fmt.Fprintf(a.stdout, "added: %s to %s\n", rule, st.path)
	st.noteUntrusted(a, "this rule")
	fmt.Fprintln(a.stdout, "every public host over https is now reached without asking; deny rules still win, and private, loopback and special-purpose addresses stay refused at dial time")
	undo := "ocfetch rules remove --public-https"
	if user {
		undo += " --user"
	}
	fmt.Fprintf(a.stdout, "undo with: %s\n", undo)
	return nil
}

// ruleStore is one layer's rules file as the writing commands use it.
type ruleStore struct {
	// ws is the workspace whose rules file it is; nil for the user's.
	ws     *workspace.Workspace
	path   string
	load   func() (*rules.Set, error)
	add    func(context.Context, rules.Rule) error
	remove func(context.Context, string, uint16) (bool, error)
}

// ruleStore returns the user's rules file (user) or the workspace's; for
// the workspace, write commands first make sure of its .oc_chat/
// (ensureWorkspace), as how.
func (a *app) ruleStore(ctx context.Context, user bool, how string) (ruleStore, error) {
	if user {
		loc, err := a.userRules()
		if err != nil {
			return ruleStore{}, err
		}
		if err := sandbox.CheckPolicyWritable(loc.Path()); err != nil {
			return ruleStore{}, classify(err)
		}
		return a.loggedRuleStore(ruleStore{
			path: loc.Path(),
			load: func() (*rules.Set, error) { return rules.LoadAt(loc) },
			add:  func(ctx context.Context, r rules.Rule) error { return rules.AddAt(ctx, loc, r) },
			remove: func(ctx context.Context, h string, p uint16) (bool, error) {
				return rules.RemoveAt(ctx, loc, h, p)
			},
		}), nil
	}
	ws, err := a.workspace()
	if err != nil {
		return ruleStore{}, err
	}
	if _, err := rules.Load(ws); err != nil {
		return ruleStore{}, classify(err) // refuse before creating anything
	}
	if err := sandbox.CheckPolicyWritable(ws.RulesPath()); err != nil {
		return ruleStore{}, classify(err)
	}
	if err := a.ensureWorkspace(ctx, ws, how); err != nil {
		return ruleStore{}, err
	}
	return a.loggedRuleStore(ruleStore{
		ws:     &ws,
		path:   ws.RulesPath(),
		load:   func() (*rules.Set, error) { return rules.Load(ws) },
		add:    func(ctx context.Context, r rules.Rule) error { return rules.Add(ctx, ws, r) },
		remove: func(ctx context.Context, h string, p uint16) (bool, error) { return rules.Remove(ctx, ws, h, p) },
	}), nil
}

// noteUntrusted says, for the workspace's rules file, that an allow rule
// (grant) just written is ignored while the workspace is not trusted
// (app.noteUntrusted); the user's rules need no trust.
func (st ruleStore) noteUntrusted(a *app, grant string) {
	if st.ws != nil {
		a.noteUntrusted(*st.ws, grant)
	}
}

// loggedRuleStore is st whose every change is the L1 diagnostics line of
// a rule saved or removed (diag.RuleSaved).
func (a *app) loggedRuleStore(st ruleStore) ruleStore {
	add, remove := st.add, st.remove
	st.add = func(ctx context.Context, r rules.Rule) error {
		err := add(ctx, r)
		if err == nil {
			diag.RuleSaved(ctx, a.log(), string(r.Decision), r.Target.Host, r.Target.Port, st.path)
		}
		return err
	}
	st.remove = func(ctx context.Context, h string, p uint16) (bool, error) {
		removed, err := remove(ctx, h, p)
		if removed && err == nil {
			diag.RuleRemoved(ctx, a.log(), h, p, st.path)
		}
		return removed, err
	}
	return st
}

// runRulesSet saves a rule deciding d for target. rules.Add replaces a
// rule for the same host and port with the other decision, so the file
// never holds both.
func runRulesSet(ctx context.Context, a *app, d rules.Decision, target string, user bool) error {
	arg, err := rules.ParseArg(target)
	if err != nil {
		return ruleTargetUsage(err)
	}
	pattern, port := arg.Pattern, arg.Port
	if d == rules.Allow {
		if err := rules.Allowable(pattern); err != nil {
			return ruleTargetUsage(err)
		}
	}
	if arg.Note != "" {
		fmt.Fprintf(a.stderr, "ocfetch: note: %s\n", arg.Note)
	}
	st, err := a.ruleStore(ctx, user, "ocfetch rules "+string(d))
	if err != nil {
		return err
	}
	set, err := st.load()
	if err != nil {
		return classify(err)
	}
	rule := rules.NewRule(d, pattern, port)
	previous, saved := set.Saved(rule)
	switch {
	case saved && previous.Decision == d:
		fmt.Fprintf(a.stdout, "unchanged: %s is already in %s\n", rule, st.path)
	default:
		if err := st.add(ctx, rule); err != nil {
			return classify(err)
		}
		if saved {
			fmt.Fprintf(a.stdout, "replaced: %s with %s in %s\n", previous, rule, st.path)
		} else {
			fmt.Fprintf(a.stdout, "added: %s to %s\n", rule, st.path)
		}
	}
	if d == rules.Allow {
		st.noteUntrusted(a, "this rule")
	}
	return nil
}

func newRulesRemoveCmd(a *app) *cobra.Command {
	var user, public bool
	cmd := &cobra.Command{
		Use:   "remove [--user] HOST[:PORT] | --public-https",
		Short: "Remove the rules (allow and deny) for a host on a port, 443 when none is given",
		Example: `  ocfetch rules remove example.com
  ocfetch rules remove '*.example.com:8443'
  ocfetch rules remove --user example.org
  ocfetch rules remove --public-https`,
		Args: func(cmd *cobra.Command, args []string) error {
			if public {
				return noArgs(cmd, args)
			}
			return exactArgs("HOST[:PORT]")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target := ""
			if !public {
				target = args[0]
			}
			return runRulesRemove(cmd.Context(), a, target, user)
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "remove it from your rules (os.UserConfigDir()/ocfetch/rules.json)")
	cmd.Flags().BoolVar(&public, "public-https", false, "remove the open-web rule \"allow *:443\"")
	return cmd
}

// runRulesRemove removes the rules for target; "" is the open-web rule
// (--public-https).
func runRulesRemove(ctx context.Context, a *app, target string, user bool) error {
	arg := rules.Arg{Pattern: capability.HostPattern{Host: rules.PublicHTTPSHost}, Port: rules.PublicHTTPSPort}
	if target != "" {
		var err error
		if arg, err = rules.ParseArg(target); err != nil {
			return ruleTargetUsage(err)
		}
	}
	if !user {
		// Nothing to remove where there is no .oc_chat/: create nothing.
		if ws, err := a.workspace(); err == nil && !exists(ws.Dir()) {
			fmt.Fprintf(a.stdout, "unchanged: no rule for %s in %s\n", arg, ws.RulesPath())
			return nil
		}
	}
	st, err := a.ruleStore(ctx, user, "ocfetch rules remove")
	if err != nil {
		return err
	}
	removed, err := st.remove(ctx, arg.Pattern.String(), arg.Port)
	if err != nil {
		return classify(err)
	}
	if !removed {
		fmt.Fprintf(a.stdout, "unchanged: no rule for %s in %s\n", arg, st.path)
		return nil
	}
	fmt.Fprintf(a.stdout, "removed: %s from %s\n", arg, st.path)
	return nil
}

// savedRules returns the workspace and the rules saved in it; an invalid
// rules file is a refusal naming the file.
func (a *app) savedRules() (workspace.Workspace, *rules.Set, error) {
	ws, err := a.workspace()
	if err != nil {
		return ws, nil, err
	}
	set, err := rules.Load(ws)
	if err != nil {
		return ws, nil, classify(err)
	}
	return ws, set, nil
}

// ruleTargetUsage is a refusal of a rule target the user wrote
// (rules.ParseArg, rules.Allowable) as a usage error, keeping its message
// and hint.
func ruleTargetUsage(err error) error {
	r, ok := refusal.As(err)
	if !ok {
		return classify(err)
	}
	return usageErrorf(r.Hint, "%s", r.Message)
}

// writeJSON prints v as one indented JSON object and a newline.
func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return internalErrorf("encode JSON: %v", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return internalErrorf("write output: %v", err)
	}
	return nil
}
