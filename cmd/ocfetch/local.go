package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func newLocalCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "local",
		Short: "Show and edit the loopback port allowlist (local mode)",
		Long: `Local mode lets ocfetch reach a development server on localhost, 127.0.0.1
or [::1], and only when the risk profile is permissive, the URL names its
port, and that port is listed in .oc_chat/local_fetch.json. These commands
read and write that file (atomically, under a lock); a tool call never does.`,
		Example: `  ocfetch local show
  ocfetch local allow 3000
  ocfetch local revoke 3000
  ocfetch get --profile permissive http://127.0.0.1:3000/`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRun,
	}
	cmd.AddCommand(newLocalShowCmd(a), newLocalAllowCmd(a), newLocalRevokeCmd(a))
	return cmd
}

// localShowJSON is the object `local show --json` prints.
type localShowJSON struct {
	File      string       `json:"file"`
	Exists    bool         `json:"exists"`
	Ports     []uint16     `json:"ports"`
	Profile   risk.Profile `json:"profile"`
	LocalMode bool         `json:"local_mode"`
	// Trusted: the workspace is trusted, so its ports count.
	Trusted bool `json:"trusted"`
}

func newLocalShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show the allowlist file, its ports, and whether the profile admits local mode",
		Example: `  ocfetch local show
  ocfetch local show --profile permissive --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLocalShow(cmd.Context(), a, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"file", "exists", "ports", "profile", "local_mode"}`)
	return cmd
}

func runLocalShow(_ context.Context, a *app, asJSON bool) error {
	sc, err := a.scope("", false)
	if err != nil {
		return err
	}
	ws, profile := sc.Workspace, sc.Profile
	out := localShowJSON{File: localfetch.AllowlistPath(ws), Exists: true, Ports: []uint16{}, Profile: profile}
	ports, err := localfetch.ReadAllowedPorts(ws)
	switch refusal.CodeOf(err) {
	case "":
		out.Ports = append(out.Ports, ports...)
	case refusal.LocalAllowlistMissing:
		out.Exists = false
	default:
		// An invalid file admits nothing; say so and name the file.
		return classify(err)
	}
	if out.Trusted, err = a.workspaceTrusted(ws); err != nil {
		return err
	}
	// Local mode works only where the ports count: a trusted workspace.
	out.LocalMode = profile == localfetch.Profile && len(out.Ports) > 0 && out.Trusted
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	fmt.Fprintf(a.stdout, "allowlist: %s\n", out.File)
	switch {
	case !out.Exists:
		fmt.Fprintln(a.stdout, "ports:     none (the file does not exist)")
	default:
		fmt.Fprintf(a.stdout, "ports:     %s\n", localfetch.Ports(out.Ports))
	}
	switch {
	case profile != localfetch.Profile:
		fmt.Fprintf(a.stdout, "profile %s: local mode is OFF (needs %s)\n", profile, localfetch.Profile)
	case !out.Trusted && len(out.Ports) > 0:
		fmt.Fprintf(a.stdout, "profile %s: local mode is OFF (the workspace is not trusted)\n", profile)
	case len(out.Ports) == 0:
		fmt.Fprintf(a.stdout, "profile %s: local mode is ON, but no port is allowed (ocfetch local allow PORT)\n", profile)
	default:
		fmt.Fprintf(a.stdout, "profile %s: local mode is ON for ports %s\n", profile, localfetch.Ports(out.Ports))
	}
	if !out.Trusted && len(out.Ports) > 0 {
		fmt.Fprintf(a.stdout, "note: the workspace is not trusted: its ports are ignored until `%s`\n", trust.Command(ws.Root))
	}
	return nil
}

func newLocalAllowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "allow PORT",
		Short:   "Add a port to the allowlist (creating the file if needed)",
		Example: "  ocfetch local allow 3000",
		Args:    exactArgs("PORT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLocalAllow(cmd.Context(), a, args[0])
		},
	}
}

func runLocalAllow(ctx context.Context, a *app, arg string) error {
	e, err := editAllowlist(ctx, a, arg, "ocfetch local allow", localfetch.AllowPort)
	if err != nil {
		return err
	}
	verb := "allowed"
	if e.listed {
		verb = "unchanged"
	}
	fmt.Fprintf(a.stdout, "%s: port %d in %s (ports: %s)\n", verb, e.port, localfetch.AllowlistPath(e.ws), e.ports)
	a.noteUntrusted(e.ws, "this port")
	if sc, err := a.scope("", false); err == nil && sc.Profile != localfetch.Profile {
		p := sc.Profile
		fmt.Fprintf(a.stdout, "note: profile %s does not admit local mode; it needs %s (--profile %s, or \"risk_profile\" in %s)\n",
			p, localfetch.Profile, localfetch.Profile, e.ws.SettingsPath())
	}
	return nil
}

func newLocalRevokeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "revoke PORT",
		Short:   "Remove a port from the allowlist",
		Example: "  ocfetch local revoke 3000",
		Args:    exactArgs("PORT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLocalRevoke(cmd.Context(), a, args[0])
		},
	}
}

func runLocalRevoke(ctx context.Context, a *app, arg string) error {
	e, err := editAllowlist(ctx, a, arg, "ocfetch local revoke", localfetch.RevokePort)
	if err != nil {
		return err
	}
	if !e.listed {
		fmt.Fprintf(a.stdout, "unchanged: port %d is not in %s (ports: %s)\n", e.port, localfetch.AllowlistPath(e.ws), e.ports)
		return nil
	}
	fmt.Fprintf(a.stdout, "revoked: port %d from %s (ports: %s)\n", e.port, localfetch.AllowlistPath(e.ws), e.ports)
	return nil
}

// portEdit is what one `local allow` or `local revoke` did, for its report.
type portEdit struct {
	ws     workspace.Workspace
	port   uint16
	listed bool             // the port was in the allowlist before the edit
	ports  localfetch.Ports // the allowlist after the edit
}

// editAllowlist parses the PORT argument and applies change (localfetch.AllowPort
// or localfetch.RevokePort) to the workspace's allowlist. A missing file counts
// as an empty list; an invalid one is refused before change runs, so a broken
// file is never rewritten.
func editAllowlist(ctx context.Context, a *app, arg, how string,
	change func(context.Context, workspace.Workspace, uint16) (localfetch.Ports, error)) (portEdit, error) {
	port, err := parsePortArg(arg)
	if err != nil {
		return portEdit{}, err
	}
	ws, err := a.workspace()
	if err != nil {
		return portEdit{}, err
	}
	before, err := localfetch.ReadAllowedPorts(ws)
	if err != nil && refusal.CodeOf(err) != refusal.LocalAllowlistMissing {
		return portEdit{}, classify(err)
	}
	if err := sandbox.CheckPolicyWritable(localfetch.AllowlistPath(ws)); err != nil {
		return portEdit{}, classify(err)
	}
	if err := a.ensureWorkspace(ctx, ws, how); err != nil {
		return portEdit{}, err
	}
	ports, err := change(ctx, ws, port)
	if err != nil {
		return portEdit{}, classify(err)
	}
	return portEdit{ws: ws, port: port, listed: before.Contains(port), ports: ports}, nil
}

// parsePortArg parses a PORT argument, 1–65535, as a usage error if bad.
func parsePortArg(s string) (uint16, error) {
	port, err := capability.ParsePort(s)
	if err != nil {
		return 0, usageErrorf("PORT is a decimal number from 1 to 65535", "%v", err)
	}
	return port, nil
}
