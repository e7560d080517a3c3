package shellrun

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/workspace"
)

// Refused is one host:port a run was refused, as its report and `rules
// allow --from-run` see it.
type Refused struct {
	Target capability.Target
	Count  int
	First  time.Time
	Reason string
	// Allowable: a saved allow rule would admit it (not_approved, not
	// denied by the user at the question); a deny rule, the address
	// check or a managed policy's refusal are not undone by a rule.
	Allowable bool
}

// Refusals reads the audit lines of the run runID in ws and returns every
// target its proxy refused, in the order first refused. A malformed line
// is passed over. The log is scanned a line at a time ([audit.Scan]):
// what is kept is one record per refused target of this run, whatever
// else the log holds.
func Refusals(ws workspace.Workspace, runID string) ([]Refused, error) {
	var out []Refused
	index := map[capability.Target]int{}
	err := audit.Scan(ws, func(e audit.Entry) error {
		if e.RunID != runID || e.Tool != proxy.AuditTool || e.Decision == audit.DecisionAllow || e.Requirement == nil {
			return nil
		}
		t := e.Requirement.Target
		i, ok := index[t]
		if !ok {
			i = len(out)
			index[t] = i
			out = append(out, Refused{Target: t, First: e.Time, Reason: e.Outcome, Allowable: true})
		}
		out[i].Count++
		if e.Outcome != string(refusal.NotApproved) || e.DecidedBy == audit.ByDenied {
			out[i].Allowable = false
			out[i].Reason = e.Outcome
			if e.DecidedBy == audit.ByDenied {
				out[i].Reason += " (you denied it)"
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, audit.ErrMalformedLine) {
		return nil, err
	}
	return out, nil
}

// Allowable returns the targets of refused that a rule would admit,
// sorted.
func Allowable(refused []Refused) []capability.Target {
	var ts []capability.Target
	for _, r := range refused {
		if r.Allowable {
			ts = append(ts, r.Target)
		}
	}
	slices.SortFunc(ts, func(a, b capability.Target) int { return strings.Compare(a.String(), b.String()) })
	return ts
}

// WriteReport writes run --report's summary: every refused host:port
// with its count and first time, and the one command that allows those a
// rule can allow.
func WriteReport(w io.Writer, runID string, refused []Refused) {
	if len(refused) == 0 {
		fmt.Fprintf(w, "ocfetch: run %s: nothing was refused\n", runID)
		return
	}
	noun := "targets"
	if len(refused) == 1 {
		noun = "target"
	}
	fmt.Fprintf(w, "ocfetch: run %s: %d %s refused\n", runID, len(refused), noun)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TARGET\tCOUNT\tFIRST\tREASON")
	allowable := 0
	for _, r := range refused {
		if r.Allowable {
			allowable++
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\n", safetext.Line(r.Target.String()), r.Count, r.First.Local().Format(time.TimeOnly), safetext.Line(r.Reason))
	}
	tw.Flush()
	switch allowable {
	case 0:
		fmt.Fprintln(w, "ocfetch: no rule would admit these (a deny rule, the address check or your answer refused them)")
	case len(refused):
		fmt.Fprintf(w, "allow them all with: ocfetch rules allow --from-run %s\n", runID)
	default:
		fmt.Fprintf(w, "allow the %d not_approved ones with: ocfetch rules allow --from-run %s\n", allowable, runID)
	}
}

// report is [Options.Report]: the run's refusals, or why they could not
// be read.
func report(w io.Writer, sc *scope.Scope, runID string) {
	refused, err := Refusals(sc.Workspace, runID)
	if err != nil {
		fmt.Fprintf(w, "ocfetch: --report: %s\n", safetext.Line(err.Error()))
		return
	}
	WriteReport(w, runID, refused)
}
