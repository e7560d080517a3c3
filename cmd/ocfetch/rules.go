package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

func newRulesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List, add and remove the saved network rules of the workspace",
		Long: `Saved rules live in .oc_chat/rules.json. A rule allows or denies one
host (or every subdomain, with *.example.com) on one port (443 when none is
given). A deny rule wins over every allow rule, and over --yes.

A URL is read as the host and port it reaches: http://example.com/ is
example.com:80, https://example.com/docs is example.com:443 (a rule covers
the whole host and port, never a path). An allow rule for an address the
egress guard always refuses (10.0.0.1, 169.254.169.254, fd00::1, …) is
refused, naming the range: no rule can reach it.`,
		Example: `  ocfetch rules list
  ocfetch rules allow example.com
  ocfetch rules allow '*.example.com:8443'
  ocfetch rules deny tracker.example
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
}

// rulesListJSON is the object `rules list --json` prints.
type rulesListJSON struct {
	File  string     `json:"file"`
	Rules []ruleJSON `json:"rules"`
}

func newRulesListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved rules (decision, host, port)",
		Example: `  ocfetch rules list
  ocfetch rules list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRulesList(cmd.Context(), a, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"file": …, "rules": [{"decision", "host", "port"}]}`)
	return cmd
}

func runRulesList(_ context.Context, a *app, asJSON bool) error {
	ws, set, err := a.savedRules()
	if err != nil {
		return err
	}
	out := rulesListJSON{File: ws.RulesPath(), Rules: []ruleJSON{}}
	for _, r := range set.Rules() {
		out.Rules = append(out.Rules, ruleJSON{Decision: r.Decision, Host: r.Target.Host, Port: r.Target.Port})
	}
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	if len(out.Rules) == 0 {
		fmt.Fprintf(a.stdout, "no rules in %s\n", out.File)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DECISION\tHOST\tPORT")
	for _, r := range out.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", r.Decision, r.Host, r.Port)
	}
	return tw.Flush()
}

func newRulesSetCmd(a *app, d rules.Decision) *cobra.Command {
	verb := "Allow"
	if d == rules.Deny {
		verb = "Deny"
	}
	return &cobra.Command{
		Use:   string(d) + " HOST[:PORT]",
		Short: verb + " a host (or *.domain) on a port, 443 when none is given",
		Example: fmt.Sprintf(`  ocfetch rules %[1]s example.com
  ocfetch rules %[1]s api.example.com:8443
  ocfetch rules %[1]s '*.example.com'
  ocfetch rules %[1]s '[2606:4700::1111]:443'
  ocfetch rules %[1]s http://example.com/   # a URL: its host and port (80 for http, 443 for https)`, d),
		Args: exactArgs("HOST[:PORT]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRulesSet(cmd.Context(), a, d, args[0])
		},
	}
}

// runRulesSet saves a rule deciding d for target. rules.Add replaces a
// rule for the same host and port with the other decision, so the file
// never holds both.
func runRulesSet(ctx context.Context, a *app, d rules.Decision, target string) error {
	pattern, port, note, err := parseRuleTarget(target)
	if err != nil {
		return err
	}
	if d == rules.Allow {
		if err := checkAllowable(pattern); err != nil {
			return err
		}
	}
	if note != "" {
		fmt.Fprintf(a.stderr, "ocfetch: note: %s\n", note)
	}
	ws, set, err := a.savedRules()
	if err != nil {
		return err
	}
	rule := rules.NewRule(d, pattern, port)
	var previous *rules.Rule
	for _, r := range set.Rules() {
		if r.Target.Host == rule.Target.Host && r.Target.Port == port {
			previous = &r
		}
	}
	if previous != nil && previous.Decision == d {
		fmt.Fprintf(a.stdout, "unchanged: %s is already in %s\n", rule, ws.RulesPath())
		return nil
	}
	if err := rules.Add(ctx, ws, rule); err != nil {
		return classify(err)
	}
	if previous != nil {
		fmt.Fprintf(a.stdout, "replaced: %s with %s in %s\n", previous, rule, ws.RulesPath())
		return nil
	}
	fmt.Fprintf(a.stdout, "added: %s to %s\n", rule, ws.RulesPath())
	return nil
}

func newRulesRemoveCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "remove HOST[:PORT]",
		Short: "Remove the rules (allow and deny) for a host on a port, 443 when none is given",
		Example: `  ocfetch rules remove example.com
  ocfetch rules remove '*.example.com:8443'`,
		Args: exactArgs("HOST[:PORT]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRulesRemove(cmd.Context(), a, args[0])
		},
	}
}

func runRulesRemove(ctx context.Context, a *app, target string) error {
	pattern, port, _, err := parseRuleTarget(target)
	if err != nil {
		return err
	}
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	removed, err := rules.Remove(ctx, ws, pattern.String(), port)
	if err != nil {
		return classify(err)
	}
	if !removed {
		fmt.Fprintf(a.stdout, "unchanged: no rule for %s in %s\n", hostPort(pattern.String(), port), ws.RulesPath())
		return nil
	}
	fmt.Fprintf(a.stdout, "removed: %s from %s\n", hostPort(pattern.String(), port), ws.RulesPath())
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

// parseRuleTarget is rules.ParseRuleTarget with a bad pattern as a usage
// error, keeping the rules package's message and hint. A URL is understood
// too, for the host and port it reaches: http://example.com/ is
// example.com:80, https://example.com/docs is example.com:443, an explicit
// port wins. A rule covers the whole host and port, so the URL's path and
// query are not part of it (note says so); another scheme or credentials
// in the URL are a usage error that says to write HOST[:PORT].
func parseRuleTarget(s string) (pattern capability.HostPattern, port uint16, note string, err error) {
	if strings.Contains(s, "://") {
		s, note, err = urlRuleTarget(s)
		if err != nil {
			return pattern, 0, "", err
		}
	}
	pattern, port, err = rules.ParseRuleTarget(s)
	if err != nil {
		msg, hint := err.Error(), "write HOST, HOST:PORT, *.DOMAIN[:PORT] or [IPv6]:PORT; the port defaults to 443"
		if r, ok := refusal.As(err); ok {
			msg = r.Message
			if r.Hint != "" {
				hint = r.Hint
			}
		}
		return pattern, 0, "", usageErrorf(hint, "%s", msg)
	}
	return pattern, port, note, nil
}

// urlRuleTarget turns an http or https URL into the HOST:PORT it reaches.
func urlRuleTarget(s string) (target, note string, err error) {
	const hint = "write HOST[:PORT], like example.com or example.com:8443 (a URL's http:// means port 80, https:// port 443)"
	u, perr := url.Parse(s)
	if perr != nil || u.Host == "" {
		return "", "", usageErrorf(hint, "rule target %q is not a URL ocfetch can read", capability.Sanitize(s))
	}
	port := ""
	switch strings.ToLower(u.Scheme) {
	case "http":
		port = "80"
	case "https":
		port = "443"
	default:
		return "", "", usageErrorf(hint, "rule target %q: scheme %q cannot be fetched", capability.Sanitize(s), capability.Sanitize(u.Scheme))
	}
	if u.User != nil {
		return "", "", usageErrorf(hint, "rule target: a URL with credentials (user:pass@) is not a rule")
	}
	if u.Port() != "" {
		port = u.Port()
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		note = "a rule covers the whole host and port; the URL's path and query are not part of it"
	}
	return host + ":" + port, note, nil
}

// checkAllowable refuses an allow rule for an address the egress guard
// always refuses (a private, link-local, metadata, … literal), naming the
// range, since such a rule could never let a call through. Local mode's
// loopback hosts (localhost, 127.0.0.1, ::1) stay allowable: their rules
// cover an allowlisted port.
func checkAllowable(pattern capability.HostPattern) error {
	host := pattern.String()
	if host == "localhost" || host == "127.0.0.1" || host == "::1" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name: what it resolves to is checked at every dial
	}
	r, bad := egress.NonPublicRange(ip)
	if !bad {
		return nil
	}
	return usageErrorf("only public addresses can be reached; for a dev server on this machine use local mode: ocfetch local allow PORT, then http://127.0.0.1:PORT/",
		"cannot allow %s: the egress guard always refuses it (%s is in %s)", ip, ip, r)
}

func hostPort(host string, port uint16) string {
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
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
