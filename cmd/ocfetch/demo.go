package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/demo"
)

func newDemoCmd(a *app) *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show, offline, what ocfetch fetches and what it refuses, and why",
		Long: `demo starts a small web site on a free loopback port inside this process,
creates a temporary workspace (profile permissive, that port allowlisted),
fetches a page as Markdown, then shows what is refused, each with its reason
code: a redirect off the approved target, a port that is not allowlisted,
127.0.0.2, [::ffff:127.0.0.1], a full-width spelling of 127.0.0.1, and a
file:// URL. It ends with the audit lines those calls wrote. Nothing leaves
127.0.0.1; it exits 0 when every step behaved as shown, 1 otherwise.`,
		Example: `  ocfetch demo
  go run ./cmd/ocfetch demo
  ocfetch demo --keep    # keep the temporary workspace to look at its files`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), a, keep)
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary workspace and print where it is")
	return cmd
}

// runDemo runs package demo with the CLI's output, diagnostics, managed
// policy, audit log (and its exporter) and audit table.
func runDemo(ctx context.Context, a *app, keep bool) error {
	err := demo.Run(ctx, &demo.Options{
		Out:        a.stdout,
		Logger:     a.log(),
		Managed:    a.layers.managed,
		Audit:      a.auditLog,
		AuditTable: func(entries []audit.Entry) { audit.WriteTable(a.stdout, entries) },
		Keep:       keep,
	})
	var de *demo.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		// Exit 1 with the demo's text, whatever it wraps: a demo that
		// could not set up, or misbehaved, is never a refusal's exit code.
		return internalErrorf("%v", err)
	}
	return classify(err)
}
