package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/explain"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/safetext"
)

func newExplainCmd(a *app) *cobra.Command {
	var asJSON, proxy bool
	cmd := &cobra.Command{
		Use:   "explain URL",
		Short: "Say what the policy decides for a URL, and why, sending nothing",
		Long: `Explain prints what "ocfetch get URL" would be told in this workspace,
without sending a packet or resolving a name: the decision (allow, deny or
ask), the layer, rule and file that made it, local mode's verdict with its
file and port, the scheme rule, and for an IP literal the address check
naming the IANA range. --proxy explains the proxy's decision instead (it
forwards http to a rule on port 80; "ask" there means: ocfetch run on a
terminal asks you, ocfetch proxy and run without a terminal refuse
not_approved). Exit 0 whatever the decision; --json prints one object.`,
		Example: `  ocfetch explain https://example.com/docs
  ocfetch explain --json https://api.example.com/ | jq .decision
  ocfetch explain --proxy http://registry.example:80/
  ocfetch --profile permissive explain http://127.0.0.1:3000/`,
		Args: exactArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd.Context(), a, args[0], asJSON, proxy)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&proxy, "proxy", false, "explain the proxy's decision (ocfetch run / ocfetch proxy)")
	return cmd
}

func runExplain(ctx context.Context, a *app, rawURL string, asJSON, proxy bool) error {
	// The URL is checked as get checks it, so that both say the same.
	if strings.TrimSpace(rawURL) == "" {
		return usageErrorf("run 'ocfetch explain --help' for usage", "missing URL")
	}
	if !utf8.ValidString(rawURL) {
		return usageErrorf("run 'ocfetch explain --help' for usage", "the URL is not valid UTF-8")
	}
	front := policy.FrontFetchTool
	if proxy {
		front = policy.FrontProxy
	}
	// get, the proxy and run connect through settings.json's
	// upstream_proxy (a workspace grant that Decide judges too:
	// proxyOptions reads it as get does).
	sc, err := a.scope("", true)
	if err != nil {
		return err
	}
	e := explain.For(ctx, sc, front, rawURL)
	if asJSON {
		// Prose is made safe to show as the text form makes it; paths stay
		// exact (they name files a script may open).
		e.Message, e.Hint = safetext.Line(e.Message), safetext.Line(e.Hint)
		if e.Local != nil {
			e.Local.Message = safetext.Line(e.Local.Message)
		}
		return writeJSON(a.stdout, e)
	}
	printExplanation(a.stdout, e)
	return nil
}

// printExplanation writes the human form, every value made safe to show.
func printExplanation(w io.Writer, e explain.Explanation) {
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-11s %s\n", k+":", safetext.Line(v))
		}
	}
	decision := e.Decision
	if e.Decision == "ask" && e.Front == policy.FrontProxy.String() {
		decision = "ask: ocfetch run on a terminal asks you; ocfetch proxy, and run without a terminal or with --no-ask, refuse it (not_approved)"
	}
	line("decision", decision)
	if e.Target != nil {
		line("target", e.Target.String())
	}
	if e.Layer != "" && e.Layer != "none" {
		line("layer", e.Layer)
	}
	line("rule", e.Rule)
	line("file", e.File)
	line("decided by", e.DecidedBy)
	if e.Reason != "" {
		line("reason", string(e.Reason)+": "+e.Message)
	}
	line("hint", e.Hint)
	line("open web", e.OpenWeb)
	line("scheme", e.Scheme)
	for _, l := range e.Layers {
		line("layer "+l.Layer, l.File+": "+l.State)
	}
	if l := e.Local; l != nil {
		if l.Admitted {
			line("local mode", fmt.Sprintf("admits port %d (%s)", l.Port, l.File))
		} else {
			line("local mode", fmt.Sprintf("refuses: %s: %s", l.Reason, l.Message))
		}
	}
	if ad := e.Address; ad != nil {
		if ad.Public {
			line("address", ad.IP+" is public")
		} else {
			line("address", ad.IP+" is in "+ad.Range+": never dialled")
		}
	} else if e.Target != nil && e.Local == nil {
		line("address", "a name: resolved and checked when get dials, not here")
	}
}
