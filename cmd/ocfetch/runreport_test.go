//go:build linux || darwin || freebsd

package main

import (
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/rules"
)

// TestRunReport: `ocfetch run --report -- CMD` lists, when CMD exits, every
// host:port the run was refused with its count, and the one command that
// allows them all; `rules allow --from-run RUN_ID` then saves exactly
// those three, after listing them.
func TestRunReport(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH")
	}
	root := newRoot(t)
	if err := testws.GiveToSandboxUser(root); err != nil {
		t.Fatal(err)
	}
	c := curlPath + " -sS -o /dev/null --noproxy '' --max-time 10 "
	script := c + "http://a.test/; " + c + "http://a.test/x; " + c + "http://b.test:8080/; " +
		c + "http://c.test/; " + c + "http://c.test/; " + c + "http://c.test/; true"
	r := ocfetch(t, cliOptions{}, "--root", root, "run", "--report", "--", "sh", "-c", script)
	r.want(t, exitOK, nil, []string{"3 targets refused", "allow them all with: ocfetch rules allow --from-run "})
	for _, row := range []string{`a\.test:80 +2 +\d\d:\d\d:\d\d +not_approved`, `b\.test:8080 +1 +`, `c\.test:80 +3 +`} {
		if !regexp.MustCompile(row).MatchString(r.stderr) {
			t.Errorf("report does not match %s:\n%s", row, r.stderr)
		}
	}
	m := regexp.MustCompile(`--from-run ([0-9a-f-]{36})`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no run id in:\n%s", r.stderr)
	}
	runID := m[1]
	for _, line := range auditLinesOf(t, root) {
		if !strings.Contains(line, `"run_id":"`+runID+`"`) {
			t.Errorf("audit line without the run id: %s", line)
		}
	}

	r = ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", "--from-run", runID)
	r.want(t, exitOK, []string{"refused 3 targets a rule admits:\n  a.test:80\n  b.test:8080\n  c.test:80\n", "added: allow c.test:80"}, nil)
	set, err := rules.Load(wsOf(t, root))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rl := range set.Rules() {
		got = append(got, rl.String())
	}
	if strings.Join(got, ",") != "allow a.test:80,allow b.test:8080,allow c.test:80" {
		t.Errorf("rules after --from-run: %v; want exactly the three refused targets", got)
	}
	ocfetch(t, cliOptions{}, "--root", root, "rules", "allow", "--from-run", "no-such-run").want(t, exitUsage, nil, []string{"no refusal of run no-such-run"})

	// A run refused nothing says so. (The allowed hosts are not fetched:
	// their names would be resolved, and a test sends no packet off
	// loopback.)
	r = ocfetch(t, cliOptions{}, "--root", root, "run", "--report", "--", "true")
	r.want(t, exitOK, nil, []string{": nothing was refused"})
}
