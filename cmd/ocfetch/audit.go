package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/audit"
)

func newAuditCmd(a *app) *cobra.Command {
	var (
		tail   int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log: one line per call, never its path, query, headers or body",
		Long: `Every call, allowed or refused, appends one JSON line to .oc_chat/audit.jsonl:
the time, the tool, "<METHOD> <host>", the decision and what made it (rule,
once, always, denied, profile, policy), and the outcome (ok or the reason
code), status, bytes and duration.

A line that cannot be read (cut short by a crash, edited by hand) is skipped
and named on stderr with a hint; the other lines are still shown and the exit
status is 0.`,
		Example: `  ocfetch audit
  ocfetch audit --tail 5
  ocfetch audit --json | jq -r .outcome`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tail < 0 {
				return usageErrorf(helpHint(cmd), "--tail must be 0 (all) or more; got %d", tail)
			}
			return runAudit(cmd.Context(), a, tail, asJSON)
		},
	}
	cmd.Flags().IntVarP(&tail, "tail", "n", 0, "show only the last `N` lines (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON lines, as stored")
	return cmd
}

func runAudit(_ context.Context, a *app, tail int, asJSON bool) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	entries, readErr := audit.Read(ws, tail)
	if readErr != nil && !errors.Is(readErr, audit.ErrMalformedLine) {
		return classify(readErr)
	}
	if err := printAudit(a, ws.AuditPath(), entries, asJSON, readErr != nil); err != nil {
		return err
	}
	if readErr != nil {
		// The valid lines are shown; the malformed ones are named (never
		// quoted) on stderr, every time, with what to do about them.
		for _, line := range strings.Split(readErr.Error(), "\n") {
			fmt.Fprintf(a.stderr, "ocfetch: warning: %s\n", line)
		}
		fmt.Fprintf(a.stderr, "hint: %s\n", audit.MalformedHint(readErr, ws.AuditPath()))
	}
	return nil
}

func printAudit(a *app, path string, entries []audit.Entry, asJSON, skipped bool) error {
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return internalErrorf("write output: %v", err)
			}
		}
		return nil
	}
	if len(entries) == 0 {
		if skipped {
			fmt.Fprintf(a.stdout, "no readable audit lines in %s\n", path)
			return nil
		}
		fmt.Fprintf(a.stdout, "no audit lines in %s\n", path)
		return nil
	}
	audit.WriteTable(a.stdout, entries)
	return nil
}
