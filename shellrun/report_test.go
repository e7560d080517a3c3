package shellrun

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/scope"
)

// TestRefusals: a run's report counts each refused host:port of that run
// once, in the order first refused, and only what a rule would admit is
// allowable; other runs' lines, other tools' lines and admitted requests
// are not counted.
func TestRefusals(t *testing.T) {
	ws := testws.Bare(t)
	log := audit.Open(ws)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	line := func(run, tool, host string, port uint16, d audit.Decision, by audit.DecidedBy, outcome string, at int) {
		t.Helper()
		req := capability.Network(capability.MustTarget(host, port))
		if err := log.Append(audit.Entry{Time: t0.Add(time.Duration(at) * time.Second), ExecutionID: "x", Tool: tool, Summary: "CONNECT " + host,
			Requirement: &req, Decision: d, DecidedBy: by, Outcome: outcome, RunID: run}); err != nil {
			t.Fatal(err)
		}
	}
	notApproved := string(refusal.NotApproved)
	line("r1", proxy.AuditTool, "a.test", 443, audit.DecisionRefused, audit.ByUnanswered, notApproved, 1)
	line("r1", proxy.AuditTool, "b.test", 80, audit.DecisionDeny, audit.ByRule, string(refusal.DeniedByRule), 2)
	line("r1", proxy.AuditTool, "a.test", 443, audit.DecisionRefused, audit.ByUnanswered, notApproved, 3)
	line("r1", proxy.AuditTool, "c.test", 443, audit.DecisionRefused, audit.ByUnanswered, notApproved, 4)
	line("r1", proxy.AuditTool, "c.test", 443, audit.DecisionDeny, audit.ByDenied, notApproved, 5)
	line("r1", proxy.AuditTool, "ok.test", 443, audit.DecisionAllow, audit.ByRule, audit.OutcomeOK, 6)
	line("r2", proxy.AuditTool, "other-run.test", 443, audit.DecisionRefused, audit.ByUnanswered, notApproved, 7)
	line("r1", "fetch", "fetch-tool.test", 443, audit.DecisionRefused, audit.ByUnanswered, notApproved, 8)

	got, err := Refusals(ws, "r1")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	want := []Refused{
		{Target: capability.MustTarget("a.test", 443), Count: 2, First: at(1), Reason: notApproved, Allowable: true},
		{Target: capability.MustTarget("b.test", 80), Count: 1, First: at(2), Reason: string(refusal.DeniedByRule)},
		{Target: capability.MustTarget("c.test", 443), Count: 2, First: at(4), Reason: notApproved + " (you denied it)"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Refusals (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]capability.Target{capability.MustTarget("a.test", 443)}, Allowable(got)); diff != "" {
		t.Errorf("Allowable (-want +got)\n%s", diff)
	}
	if got, err := Refusals(ws, "no-such-run"); err != nil || len(got) != 0 {
		t.Errorf("Refusals(no-such-run) = %v, %v; want none", got, err)
	}
}

// TestWriteReport: the report's last line names the command that allows
// what a rule can allow, and says so when nothing can be.
func TestWriteReport(t *testing.T) {
	a := Refused{Target: capability.MustTarget("a.test", 443), Count: 2, Reason: "not_approved", Allowable: true}
	b := Refused{Target: capability.MustTarget("b.test", 80), Count: 1, Reason: "denied_by_rule"}
	for _, tc := range []struct {
		name    string
		refused []Refused
		want    []string
	}{
		{"nothing", nil, []string{"ocfetch: run R: nothing was refused\n"}},
		{"all allowable", []Refused{a}, []string{"ocfetch: run R: 1 target refused\n", "  a.test:443  2 ", "allow them all with: ocfetch rules allow --from-run R\n"}},
		{"some", []Refused{a, b}, []string{"2 targets refused", "  b.test:80   1 ", "denied_by_rule", "allow the 1 not_approved ones with: ocfetch rules allow --from-run R\n"}},
		{"none allowable", []Refused{b}, []string{"ocfetch: no rule would admit these"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			WriteReport(&w, "R", tc.refused)
			for _, s := range tc.want {
				if !strings.Contains(w.String(), s) {
					t.Errorf("report lacks %q:\n%s", s, w.String())
				}
			}
		})
	}
}

// TestReportUnreadable: a report whose audit log cannot be read says why
// on one line.
func TestReportUnreadable(t *testing.T) {
	ws := testws.Bare(t)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws.AuditPath(), 0o700); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	report(&w, &scope.Scope{Workspace: ws}, "R")
	if got := w.String(); !strings.HasPrefix(got, "ocfetch: --report: ") || strings.Count(got, "\n") != 1 || !strings.Contains(got, ws.AuditPath()) {
		t.Errorf("report = %q; want one line naming the audit log", got)
	}
}
