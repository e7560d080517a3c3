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
the time, the tool, "<METHOD> <host>", the decision (allow, deny or refused)
and what made it (rule, once, always, session, denied, unanswered, profile,
policy), and the outcome (ok or the reason code), status, bytes and
duration.

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
	p := newAuditPrinter(a, asJSON)
	var readErr error
	if tail > 0 {
		var entries []audit.Entry
		entries, readErr = audit.Read(ws, tail)
		if readErr == nil || errors.Is(readErr, audit.ErrMalformedLine) {
			for _, e := range entries {
				if err := p.add(e); err != nil {
					return err
				}
			}
		}
	} else {
		// Every line: scanned and printed one at a time, so a log of any
		// size (one a repository shipped) costs one line of memory.
		readErr = audit.Scan(ws, p.add)
		if p.err != nil {
			return p.err
		}
	}
	if readErr != nil && !errors.Is(readErr, audit.ErrMalformedLine) {
		return classify(readErr)
	}
	if err := p.done(ws.AuditPath(), readErr != nil); err != nil {
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

// auditPrinter prints entries as they come: JSON lines, as stored, or
// the table (audit.Table), started at the first entry.
type auditPrinter struct {
	a      *app
	asJSON bool
	enc    *json.Encoder
	table  *audit.Table
	// err is the first failed write: printing stops there.
	err error
}

func newAuditPrinter(a *app, asJSON bool) *auditPrinter {
	return &auditPrinter{a: a, asJSON: asJSON, enc: json.NewEncoder(a.stdout)}
}

func (p *auditPrinter) add(e audit.Entry) error {
	var err error
	switch {
	case p.asJSON:
		err = p.enc.Encode(e)
	default:
		if p.table == nil {
			p.table = audit.NewTable(p.a.stdout)
		}
		err = p.table.Add(e)
	}
	if err != nil {
		p.err = internalErrorf("write output: %v", err)
	}
	return p.err
}

// done ends the output: the table's last rows, or, in text, a line saying
// that the log at path has no lines (or none readable, when skipped).
func (p *auditPrinter) done(path string, skipped bool) error {
	switch {
	case p.table != nil:
		if err := p.table.Flush(); err != nil {
			return internalErrorf("write output: %v", err)
		}
	case p.asJSON:
	case skipped:
		fmt.Fprintf(p.a.stdout, "no readable audit lines in %s\n", path)
	default:
		fmt.Fprintf(p.a.stdout, "no audit lines in %s\n", path)
	}
	return nil
}
