package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/trust"
)

func newProfileCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Show or set the workspace's risk profile (settings.json)",
		Long: `The risk profile decides what ocfetch may do: strict (saved allow rules
only), standard (saved rules, else ask), permissive (standard plus local mode).
It is read from .oc_chat/settings.json (--profile overrides it for one call).
A profile above standard in settings.json counts only in a trusted workspace;
strict always counts; an administrator's max_profile caps it.`,
		Example: `  ocfetch profile show
  ocfetch profile set permissive`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRun,
	}
	cmd.AddCommand(newProfileShowCmd(a), newProfileSetCmd(a))
	return cmd
}

// profileShowJSON is what `profile show --json` prints.
type profileShowJSON struct {
	Profile    risk.Profile `json:"profile"`
	Source     string       `json:"source"` // "flag", "settings" or "default"
	File       string       `json:"file"`
	Trusted    bool         `json:"trusted"`
	MaxProfile risk.Profile `json:"max_profile,omitempty"`
	Managed    string       `json:"managed_file,omitempty"`
}

func newProfileShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show the profile, where it comes from, and what limits it",
		Example: `  ocfetch profile show
  ocfetch profile show --json
  ocfetch --root ~/src/app profile show`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProfileShow(a, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"profile", "source", "file", "trusted", "max_profile", "managed_file"}`)
	return cmd
}

func runProfileShow(a *app, asJSON bool) error {
	sc, err := a.scope("", false)
	if err != nil {
		return err
	}
	ws, p := sc.Workspace, sc.Profile
	out := profileShowJSON{Profile: p, Source: string(sc.ProfileFrom), File: ws.SettingsPath()}
	if out.Trusted, err = a.workspaceTrusted(ws); err != nil {
		return err
	}
	m, err := a.managedPolicy()
	if err != nil {
		return err
	}
	if m.Present() {
		out.MaxProfile, out.Managed = m.MaxProfile, m.File
	}
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	switch out.Source {
	case "flag":
		fmt.Fprintf(a.stdout, "profile: %s (from --profile)\n", p)
	case "default":
		fmt.Fprintf(a.stdout, "profile: %s (the default: %s does not exist)\n", p, safetext.Line(out.File))
	default:
		fmt.Fprintf(a.stdout, "profile: %s (from %s)\n", p, safetext.Line(out.File))
	}
	if out.Source == "settings" && p == risk.Permissive && !out.Trusted {
		fmt.Fprintf(a.stdout, "note: the workspace is not trusted, so its profile %s is ignored (standard applies); `%s` trusts it\n", p, trust.Command(ws.Root))
	}
	if m.Present() && !m.Allows(p) {
		fmt.Fprintf(a.stdout, "note: the managed policy %s caps the profile at %s\n", safetext.Line(m.File), m.MaxProfile)
	}
	return nil
}

func newProfileSetCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:       "set strict|standard|permissive",
		Short:     "Write the profile into .oc_chat/settings.json",
		Example:   "  ocfetch profile set permissive",
		Args:      exactArgs("PROFILE"),
		ValidArgs: []string{"strict", "standard", "permissive"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProfileSet(cmd.Context(), a, args[0])
		},
	}
}

func runProfileSet(ctx context.Context, a *app, name string) error {
	p, err := risk.Parse(name)
	if err != nil {
		msg := err.Error()
		if r, ok := refusal.As(err); ok {
			msg = r.Message
		}
		return usageErrorf("PROFILE is strict, standard or permissive", "%s", msg)
	}
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	if err := sandbox.CheckPolicyWritable(ws.SettingsPath()); err != nil {
		return classify(err)
	}
	if err := a.ensureWorkspace(ctx, ws, "ocfetch profile set"); err != nil {
		return err
	}
	had := exists(ws.SettingsPath())
	prev, err := risk.WriteProfile(ctx, ws, p)
	if err != nil {
		return classify(err)
	}
	verb := "set"
	if prev == p && had {
		verb = "unchanged"
	}
	fmt.Fprintf(a.stdout, "%s: profile %s in %s\n", verb, p, safetext.Line(ws.SettingsPath()))
	if p == risk.Permissive {
		a.noteUntrusted(ws, "this profile")
	}
	if m, err := a.managedPolicy(); err == nil && m.Present() && !m.Allows(p) {
		fmt.Fprintf(a.stdout, "note: the managed policy %s caps the profile at %s\n", safetext.Line(m.File), m.MaxProfile)
	}
	return nil
}

// exists reports whether something is at path (not following a final
// symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
