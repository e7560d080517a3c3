package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
)

func TestAudit(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)

	r := ocfetch(t, cliOptions{}, "--root", root, "audit")
	r.want(t, exitOK, []string{"no audit lines in " + wsOf(t, root).AuditPath()}, nil)

	ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", s.url("/page?q=secret")).want(t, exitOK, nil, nil)
	ocfetch(t, cliOptions{}, "--root", root, "get", s.url("/page?q=secret")).want(t, exitRefused, nil, nil)
	ocfetch(t, cliOptions{}, "--root", root, "get", "--yes", "https://10.1.2.3/").want(t, exitRefused, nil, nil)

	r = ocfetch(t, cliOptions{}, "--root", root, "audit")
	r.want(t, exitOK, nil, nil)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("audit printed %d lines; want a header and 3 entries:\n%s", len(lines), r.stdout)
	}
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "TIME DECISION BY SUMMARY OUTCOME STATUS BYTES DURATION" {
		t.Errorf("header = %q", lines[0])
	}
	for i, want := range [][]string{
		{"allow", "rule", "GET 127.0.0.1", "ok", "200"},
		{"refused", "policy", "GET 127.0.0.1", "local_profile_not_permissive", "-", "0"},
		{"refused", "policy", "GET 10.1.2.3", "address_not_public", "-", "0"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], " "+w+" ") {
				t.Errorf("line %d %q does not show %q", i+1, lines[i+1], w)
			}
		}
	}
	if strings.Contains(r.stdout, "secret") || strings.Contains(r.stdout, "/page") {
		t.Errorf("audit shows a path or query:\n%s", r.stdout)
	}

	r = ocfetch(t, cliOptions{}, "--root", root, "audit", "--tail", "1", "--json")
	r.want(t, exitOK, nil, nil)
	if n := strings.Count(r.stdout, "\n"); n != 1 {
		t.Fatalf("audit --tail 1 --json printed %d lines; want 1:\n%s", n, r.stdout)
	}
	var e audit.Entry
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("decode: %v\n%s", err, r.stdout)
	}
	if e.Outcome != "address_not_public" || e.Summary != "GET 10.1.2.3" || e.Decision != "refused" || e.ExecutionID == "" || e.Time.IsZero() {
		t.Errorf("last entry = %+v; want the address_not_public refusal of GET 10.1.2.3", e)
	}

	r = ocfetch(t, cliOptions{}, "--root", root, "audit", "-n", "2")
	if n := strings.Count(r.stdout, "\n"); r.code != exitOK || n != 3 {
		t.Errorf("audit -n 2: exit %d, %d lines; want 0, 3\n%s", r.code, n, r.stdout)
	}
}

func TestAuditMalformedLine(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", s.url("/")).want(t, exitOK, nil, nil)
	path := wsOf(t, root).AuditPath()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"tampered\": \"with a secret\"\n")
	f.Close()

	// The readable line is shown, the bad one named with a hint; exit 0.
	r := ocfetch(t, cliOptions{}, "--root", root, "audit")
	r.want(t, exitOK, []string{"GET 127.0.0.1"}, []string{"ocfetch: warning: audit log " + path, "line 2",
		"\nhint: ", "cut short", "sed -n 2p " + path, "move the file aside"})
	if strings.Contains(r.stderr, "secret") {
		t.Errorf("the error quotes the malformed line: %s", r.stderr)
	}
	r = ocfetch(t, cliOptions{}, "--root", root, "audit", "--json")
	r.want(t, exitOK, []string{`"summary":"GET 127.0.0.1"`}, []string{"line 2", "\nhint: "})
	if strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("audit --json printed %q; want only the readable line", r.stdout)
	}

	// Nothing readable at all says so, not "no audit lines".
	if err := os.WriteFile(path, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ocfetch(t, cliOptions{}, "--root", root, "audit").want(t, exitOK, []string{"no readable audit lines in " + path}, []string{"line 1"})
}

func TestAuditBadInput(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{{"audit", "--tail", "-1"}, {"audit", "--tail", "x"}, {"audit", "extra"}, {"audit", "--jsn"}} {
		ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...).want(t, exitUsage, nil, []string{"\nhint: "})
	}
}

// TestAuditWholeLogStreams: without --tail every line is printed, in
// order, past the table's blocks of 1,024 rows, and a log of hostile
// size costs one line of memory (audit.Scan; BenchmarkReadWholeHostileLog).
func TestAuditWholeLogStreams(t *testing.T) {
	root := t.TempDir()
	ws := wsOf(t, root)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	log := audit.Open(ws)
	const n = 2100
	for i := range n {
		err := log.Append(audit.Entry{ExecutionID: "e" + strconv.Itoa(i), Tool: "fetch", Summary: "GET example.com",
			Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Outcome: audit.OutcomeOK, Status: 200, Bytes: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "audit")
	r.want(t, exitOK, nil, nil)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != n+1 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("audit printed %d lines; want a header and %d rows", len(lines), n)
	}
	for i, l := range lines[1:] {
		if f := strings.Fields(l); len(f) != 10 || f[8] != strconv.Itoa(i) {
			t.Fatalf("row %d = %q; want the entry of %d bytes, in order", i+1, l, i)
		}
	}
	r = ocfetch(t, cliOptions{}, "--root", root, "audit", "--json")
	r.want(t, exitOK, nil, nil)
	if got := strings.Count(r.stdout, "\n"); got != n || !strings.Contains(r.stdout, `"execution_id":"e2099"`) {
		t.Errorf("audit --json printed %d lines; want %d, the last e2099", got, n)
	}
}
