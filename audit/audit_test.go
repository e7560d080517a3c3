package audit_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/workspace"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// entry returns a valid entry identified by writer id and sequence i.
func entry(id string, i int) audit.Entry {
	req := capability.Network(capability.MustTarget("example.com", 443))
	return audit.Entry{
		Time:        t0.Add(time.Duration(i) * time.Millisecond),
		ExecutionID: fmt.Sprintf("%s-%d", id, i),
		Tool:        "fetch",
		Summary:     "GET example.com",
		Requirement: &req,
		Decision:    audit.DecisionAllow,
		DecidedBy:   audit.ByRule,
		Rule:        "allow example.com:443",
		Outcome:     audit.OutcomeOK,
		Status:      200,
		Bytes:       int64(1000 + i),
		DurationMS:  12,
	}
}

func newWS(t testing.TB) workspace.Workspace {
	t.Helper()
	return workspace.Workspace{Root: t.TempDir()}
}

func TestAppendFormat(t *testing.T) {
	ws := newWS(t)
	log := audit.Open(ws)
	e := entry("x", 0)
	e.Time = time.Date(2026, 11, 30, 13, 0, 0, 500, time.FixedZone("CET", 3600)) // stored as UTC
	if err := log.Append(e); err != nil {
		t.Fatal(err)
	}
	refused := audit.Entry{Time: t0, ExecutionID: "y", Tool: "proxy", Summary: "CONNECT 10.0.0.1", Decision: audit.DecisionRefused,
		DecidedBy: audit.ByPolicy, Outcome: "address_not_public", BytesUp: 0, BytesDown: 0}
	if err := log.Append(refused); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2026-11-30T12:00:00.0000005Z","execution_id":"x-0","tool":"fetch","summary":"GET example.com","requirement":{"capability":"network","target":{"host":"example.com","port":443}},"decision":"allow","decided_by":"rule","rule":"allow example.com:443","outcome":"ok","status":200,"bytes":1000,"duration_ms":12}
{"time":"2026-11-30T12:00:00Z","execution_id":"y","tool":"proxy","summary":"CONNECT 10.0.0.1","decision":"refused","decided_by":"policy","outcome":"address_not_public","bytes":0,"duration_ms":0}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("audit.jsonl mismatch (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("audit.jsonl mode %v; want 0600", perm)
	}
}

func TestAppendFillsTime(t *testing.T) {
	ws := newWS(t)
	e := entry("x", 0)
	e.Time = time.Time{}
	before := time.Now()
	if err := audit.Open(ws).Append(e); err != nil {
		t.Fatal(err)
	}
	got, err := audit.Read(ws, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("Read = %v, %v; want one entry", got, err)
	}
	if tm := got[0].Time; tm.Before(before.Add(-time.Second)) || tm.After(time.Now().Add(time.Second)) || tm.Location() != time.UTC {
		t.Errorf("Time = %v; want about now, in UTC", tm)
	}
}

func TestRoundTrip(t *testing.T) {
	ws := newWS(t)
	log := audit.Open(ws)
	var want []audit.Entry
	for i := range 5 {
		e := entry("r", i)
		if i == 3 {
			e.Requirement, e.Rule, e.Status, e.Decision, e.DecidedBy, e.Outcome = nil, "", 0, audit.DecisionDeny, audit.ByDenied, "not_approved"
		}
		if i == 4 {
			e.RunID = "0b6f3c1e-9d2a-4c57-8f0e-5a1b2c3d4e5f" // the run id round-trips
		}
		want = append(want, e)
		if err := log.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := audit.Read(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	const secret = "s3cret"
	tests := []struct {
		name   string
		change func(*audit.Entry)
	}{
		{"summary with a path", func(e *audit.Entry) { e.Summary = "GET example.com/" + secret }},
		{"summary with a query", func(e *audit.Entry) { e.Summary = "GET example.com?token=" + secret }},
		{"summary with a URL", func(e *audit.Entry) { e.Summary = "GET https://example.com" }},
		{"summary with userinfo", func(e *audit.Entry) { e.Summary = "GET user:" + secret + "@example.com" }},
		{"summary with a fragment", func(e *audit.Entry) { e.Summary = "GET example.com#" + secret }},
		{"summary with an escape", func(e *audit.Entry) { e.Summary = "GET example.com%2F" + secret }},
		{"summary with a newline", func(e *audit.Entry) { e.Summary = "GET example.com\n" + secret }},
		{"summary non-ASCII", func(e *audit.Entry) { e.Summary = "GET bücher.example" }},
		{"summary too long", func(e *audit.Entry) { e.Summary = "GET " + strings.Repeat("a", 300) + ".example" }},
		{"rule with a path", func(e *audit.Entry) { e.Rule = "allow example.com/" + secret }},
		{"rule without decision", func(e *audit.Entry) { e.Rule = "example.com:443" }},
		{"rule with another verb", func(e *audit.Entry) { e.Rule = "ask example.com:443" }},
		{"requirement without target", func(e *audit.Entry) { e.Requirement.Target = capability.Target{} }},
		{"no time", func(e *audit.Entry) { e.Time = time.Time{} }},
		{"no execution id", func(e *audit.Entry) { e.ExecutionID = "" }},
		{"execution id with space", func(e *audit.Entry) { e.ExecutionID = "a b" }},
		{"no tool", func(e *audit.Entry) { e.Tool = "" }},
		{"decision unknown", func(e *audit.Entry) { e.Decision = "maybe" }},
		{"decided_by unknown", func(e *audit.Entry) { e.DecidedBy = "magic" }},
		{"outcome empty", func(e *audit.Entry) { e.Outcome = "" }},
		{"outcome with a message", func(e *audit.Entry) { e.Outcome = "connection failed to " + secret }},
		{"outcome uppercase", func(e *audit.Entry) { e.Outcome = "OK" }},
		{"outcome mixed case", func(e *audit.Entry) { e.Outcome = "Not_approved" }},
		{"outcome with a dash", func(e *audit.Entry) { e.Outcome = "not-approved" }},
		{"summary with a backslash", func(e *audit.Entry) { e.Summary = `GET example.com\` + secret }},
		{"summary with a form field", func(e *audit.Entry) { e.Summary = "GET a=" + secret }},
		{"summary with a delete", func(e *audit.Entry) { e.Summary = "GET example.com\x7f" }},
		{"rule with a space in the target", func(e *audit.Entry) { e.Rule = "allow example.com :443" }},
		{"tool with a slash", func(e *audit.Entry) { e.Tool = "fetch/" + secret }},
		{"status", func(e *audit.Entry) { e.Status = 42 }},
		{"negative bytes", func(e *audit.Entry) { e.Bytes = -1 }},
		{"negative bytes_up", func(e *audit.Entry) { e.BytesUp = -1 }},
		{"run id with a path", func(e *audit.Entry) { e.RunID = "run/" + secret }},
		{"trusted_by unknown", func(e *audit.Entry) { e.TrustedBy = "store/" + secret }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := entry("v", 0)
			req := *e.Requirement
			e.Requirement = &req
			tc.change(&e)
			err := e.Validate()
			if !errors.Is(err, audit.ErrInvalidEntry) {
				t.Fatalf("Validate() = %v; want ErrInvalidEntry", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q quotes the secret", err)
			}
			if e.Time.IsZero() {
				return // Append fills in the time
			}
			ws := newWS(t)
			if err := audit.Open(ws).Append(e); !errors.Is(err, audit.ErrInvalidEntry) {
				t.Errorf("Append = %v; want ErrInvalidEntry", err)
			}
			if _, err := os.Stat(ws.AuditPath()); !os.IsNotExist(err) {
				t.Errorf("a refused entry created the log (stat: %v)", err)
			}
		})
	}
	valid := []struct {
		name   string
		change func(*audit.Entry)
	}{
		{"generic summary", func(e *audit.Entry) { e.Summary = "fetch (invalid arguments)" }},
		{"empty summary", func(e *audit.Entry) { e.Summary = "" }},
		{"IPv6 summary and rule", func(e *audit.Entry) {
			e.Summary, e.Rule = "GET [::1]", "allow [::1]:8080"
			e.Requirement.Target = capability.MustTarget("::1", 8080)
		}},
		{"wildcard rule", func(e *audit.Entry) { e.Rule = "deny *.example.com:443" }},
		{"trusted by --trust-root", func(e *audit.Entry) { e.TrustedBy = audit.TrustedByTrustRoot }},
		{"unanswered", func(e *audit.Entry) {
			e.DecidedBy, e.Decision, e.Outcome = audit.ByUnanswered, audit.DecisionDeny, "not_approved"
		}},
	}
	for _, tc := range valid {
		t.Run("valid/"+tc.name, func(t *testing.T) {
			e := entry("v", 0)
			req := *e.Requirement
			e.Requirement = &req
			tc.change(&e)
			if err := e.Validate(); err != nil {
				t.Errorf("Validate() = %v; want nil", err)
			}
		})
	}
}

func TestAppendTooLong(t *testing.T) {
	e := entry("v", 0)
	e.Tool = strings.Repeat("t", 64)
	// Validate bounds every field, so the line cap is hard to reach: check
	// the bound holds for the largest valid entry.
	e.Summary = "GET " + strings.Repeat("a", 290)
	line, err := json.Marshal(e)
	if err != nil || len(line) >= audit.MaxLineBytes {
		t.Fatalf("largest valid entry marshals to %d bytes (%v); want under %d", len(line), err, audit.MaxLineBytes)
	}
}

func TestNilLog(t *testing.T) {
	var log *audit.Log
	if err := log.Append(entry("n", 0)); err != nil {
		t.Errorf("nil Log Append = %v; want nil", err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	ws := newWS(t)
	log := audit.Open(ws)
	const goroutines, lines = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*lines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range lines {
				if err := log.Append(entry(fmt.Sprintf("g%d", g), i)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkLog(t, ws, goroutines, lines, "g")
}

func TestConcurrentProcesses(t *testing.T) {
	ws := newWS(t)
	const procs, lines = 3, 200
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envChild+"=1", envRoot+"="+ws.Root, fmt.Sprintf("%s=p%d", envID, p), fmt.Sprintf("%s=%d", envN, lines))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
	}
	checkLog(t, ws, procs, lines, "p")
}

// checkLog checks the raw file line by line (each a JSON object) and that
// every writer's every line is there exactly once.
func checkLog(t *testing.T, ws workspace.Workspace, writers, lines int, prefix string) {
	t.Helper()
	data, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	raw := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(raw) != writers*lines {
		t.Fatalf("got %d lines; want %d", len(raw), writers*lines)
	}
	for i, l := range raw {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not valid JSON: %.80q", i+1, l)
		}
	}
	got, err := audit.Read(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range got {
		seen[e.ExecutionID]++
	}
	for w := range writers {
		for i := range lines {
			id := fmt.Sprintf("%s%d-%d", prefix, w, i)
			if seen[id] != 1 {
				t.Errorf("entry %s appears %d times; want 1", id, seen[id])
			}
		}
	}
}

func TestReadMissing(t *testing.T) {
	got, err := audit.Read(newWS(t), 10)
	if err != nil || len(got) != 0 {
		t.Errorf("Read of a missing log = %v, %v; want nothing", got, err)
	}
}

// writeLog writes lines (each without its newline) joined by newlines, with
// a final newline unless noFinal.
func writeLog(t testing.TB, ws workspace.Workspace, lines []string, noFinal bool) {
	t.Helper()
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	s := strings.Join(lines, "\n")
	if !noFinal {
		s += "\n"
	}
	if err := os.WriteFile(ws.AuditPath(), []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func line(t testing.TB, e audit.Entry) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ids(es []audit.Entry) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.ExecutionID)
	}
	return s
}

func TestReadTail(t *testing.T) {
	ws := newWS(t)
	var lines []string
	for i := range 10 {
		lines = append(lines, line(t, entry("t", i)))
	}
	for _, noFinal := range []bool{false, true} {
		writeLog(t, ws, lines, noFinal)
		tests := []struct {
			tail int
			want []string
		}{
			{1, []string{"t-9"}},
			{3, []string{"t-7", "t-8", "t-9"}},
			{10, []string{"t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7", "t-8", "t-9"}},
			{100, []string{"t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7", "t-8", "t-9"}},
			{0, []string{"t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7", "t-8", "t-9"}},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("noFinalNewline=%v/tail=%d", noFinal, tc.tail), func(t *testing.T) {
				got, err := audit.Read(ws, tc.tail)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
					t.Errorf("Read(%d) mismatch (-want +got):\n%s", tc.tail, diff)
				}
			})
		}
	}
}

func TestReadTailLargeLog(t *testing.T) {
	ws := newWS(t)
	const n = 20000 // several MB: many scan blocks
	tmpl := line(t, entry("L", 0))
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Replace(tmpl, `"L-0"`, fmt.Sprintf(`"L-%d"`, i), 1))
		b.WriteByte('\n')
	}
	writeLog(t, ws, []string{strings.TrimSuffix(b.String(), "\n")}, false)
	got, err := audit.Read(ws, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"L-19997", "L-19998", "L-19999"}, ids(got)); diff != "" {
		t.Errorf("Read(3) mismatch (-want +got):\n%s", diff)
	}
}

func TestReadMalformed(t *testing.T) {
	ws := newWS(t)
	bad := entry("bad", 0)
	bad.Decision = "maybe"
	lines := []string{
		line(t, entry("m", 0)),
		`not json at all, token=s3cret`,
		line(t, entry("m", 1)),
		line(t, bad),
		``,
		line(t, entry("m", 2)) + ` {}`,
		`{"time": 1}`,
		line(t, entry("m", 3)),
		`{"time":"2026-11-30T12:00:00Z","execution_id":"cut`,
	}
	writeLog(t, ws, lines, true)

	got, err := audit.Read(ws, 0)
	if diff := cmp.Diff([]string{"m-0", "m-1", "m-3"}, ids(got)); diff != "" {
		t.Errorf("valid entries mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(err, audit.ErrMalformedLine) {
		t.Fatalf("Read error = %v; want ErrMalformedLine", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q quotes a line", err)
	}
	var gotLines []int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var le *audit.LineError
		if !errors.As(e, &le) {
			t.Fatalf("joined error %v is not a *LineError", e)
		}
		if le.Path != ws.AuditPath() || le.Offset < 0 {
			t.Errorf("LineError %+v; want path %s and an offset", le, ws.AuditPath())
		}
		gotLines = append(gotLines, le.Line)
	}
	if diff := cmp.Diff([]int{2, 4, 5, 6, 7, 9}, gotLines); diff != "" {
		t.Errorf("malformed line numbers mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "line 2 (byte ") {
		t.Errorf("error %q does not name line 2", err)
	}

	// A tail that does not reach the start counts from the end.
	got, err = audit.Read(ws, 3)
	if diff := cmp.Diff([]string{"m-3"}, ids(got)); diff != "" {
		t.Errorf("Read(3) entries mismatch (-want +got):\n%s", diff)
	}
	var le *audit.LineError
	if !errors.As(err, &le) || le.Line != 0 || le.FromEnd != 3 {
		t.Fatalf("Read(3) error = %v (%+v); want the line 3 from the end", err, le)
	}
	if !strings.Contains(err.Error(), "line 3 from the end") {
		t.Errorf("error %q; want \"line 3 from the end\"", err)
	}
}

func TestReadManyMalformedIsBounded(t *testing.T) {
	ws := newWS(t)
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = "garbage"
	}
	writeLog(t, ws, lines, false)
	_, err := audit.Read(ws, 0)
	joined := err.(interface{ Unwrap() []error }).Unwrap()
	if len(joined) != 21 || !strings.Contains(joined[20].Error(), "30 more malformed lines") {
		t.Errorf("got %d errors, last %v; want 20 line errors and a count of 30 more", len(joined), joined[len(joined)-1])
	}
}

// TestReadMalformedQuotesNoValue: a line's values never reach the error,
// whichever decoder refused them (LineError's contract: it never quotes
// the line). time.Time's parse error and encoding/json's type error for
// a number each quote the value they were given.
func TestReadMalformedQuotesNoValue(t *testing.T) {
	ws := newWS(t)
	const secret = "s3cretToken"
	lines := []string{
		`{"time":"` + secret + `"}`,
		`{"time":"2026-11-30T12:00:00Z","bytes":1234567890123456789012345678901234567890}`,
		line(t, entry("q", 0)),
	}
	writeLog(t, ws, lines, true)
	got, err := audit.Read(ws, 0)
	if diff := cmp.Diff([]string{"q-0"}, ids(got)); diff != "" {
		t.Errorf("valid entries mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(err, audit.ErrMalformedLine) {
		t.Fatalf("Read error = %v; want ErrMalformedLine", err)
	}
	for _, leak := range []string{secret, "1234567890123456789012345678901234567890"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error %q quotes a value of a line", err)
		}
	}
	for _, want := range []string{"line 1 (byte 0)", `field "time"`, `field "bytes"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q; want it to name %s", err, want)
		}
	}
}

// TestScan: every valid entry in the order written, malformed lines named
// by number; fn's error stops the scan and is returned as it is; a
// missing log is no entries and no error.
func TestScan(t *testing.T) {
	ws := newWS(t)
	if err := audit.Scan(ws, func(audit.Entry) error { t.Error("an entry from a missing log"); return nil }); err != nil {
		t.Fatalf("Scan of a missing log: %v", err)
	}
	writeLog(t, ws, []string{line(t, entry("s", 0)), "", "  garbage", line(t, entry("s", 1)), line(t, entry("s", 2))}, false)
	var got []audit.Entry
	err := audit.Scan(ws, func(e audit.Entry) error { got = append(got, e); return nil })
	if diff := cmp.Diff([]string{"s-0", "s-1", "s-2"}, ids(got)); diff != "" {
		t.Errorf("entries mismatch (-want +got):\n%s", diff)
	}
	var lines []int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var le *audit.LineError
		if !errors.As(e, &le) || !errors.Is(e, audit.ErrMalformedLine) || !strings.Contains(e.Error(), "not a JSON object") {
			t.Fatalf("joined error %v; want a *LineError naming a line that is not a JSON object", e)
		}
		lines = append(lines, le.Line)
	}
	if diff := cmp.Diff([]int{2, 3}, lines); diff != "" {
		t.Errorf("malformed line numbers mismatch (-want +got):\n%s", diff)
	}

	stop := errors.New("stop")
	calls := 0
	err = audit.Scan(ws, func(audit.Entry) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("Scan = %v after %d calls; want fn's own error after 1", err, calls)
	}
}

// TestReadOverlongLine: a line longer than MaxLineBytes is reported,
// never parsed. Read from the start (tail 0) reads the lines on both
// sides of it; a tail read stops at it.
func TestReadOverlongLine(t *testing.T) {
	ws := newWS(t)
	lines := []string{
		line(t, entry("o", 0)),
		`{"x":"` + strings.Repeat("a", 100<<10) + `"}`,
		line(t, entry("o", 1)),
		line(t, entry("o", 2)),
	}
	writeLog(t, ws, lines, false)
	got, err := audit.Read(ws, 0)
	if diff := cmp.Diff([]string{"o-0", "o-1", "o-2"}, ids(got)); diff != "" {
		t.Errorf("Read(0) entries mismatch (-want +got):\n%s", diff)
	}
	var le *audit.LineError
	if !errors.As(err, &le) || !strings.Contains(le.Error(), "longer than") || le.Line != 2 || le.Offset != int64(len(lines[0])+1) {
		t.Errorf("Read(0) error = %v; want the over-long line 2 reported at byte %d", err, len(lines[0])+1)
	}

	got, err = audit.Read(ws, 3)
	if diff := cmp.Diff([]string{"o-1", "o-2"}, ids(got)); diff != "" {
		t.Errorf("Read(3) entries mismatch (-want +got):\n%s", diff)
	}
	if !errors.As(err, &le) || !strings.Contains(le.Error(), "longer than") || le.FromEnd != 3 {
		t.Errorf("Read(3) error = %v; want the over-long line 3 from the end reported", err)
	}
}

func TestNotARegularFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"symlink to /dev/null", func(t *testing.T, path string) { symlink(t, "/dev/null", path) }},
		{"symlink to a regular file", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "..", "victim.txt")
			if err := os.WriteFile(other, []byte("keep\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			symlink(t, other, path)
		}},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"FIFO", func(t *testing.T, path string) {
			testio.Mkfifo(t, path)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			if err := ws.EnsureDir(); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, ws.AuditPath())
			err := audit.Open(ws).Append(entry("n", 0))
			if !errors.Is(err, workspace.ErrNotRegular) || !strings.Contains(err.Error(), ws.AuditPath()) {
				t.Errorf("Append = %v; want ErrNotRegular naming the file", err)
			}
			if _, err := audit.Read(ws, 1); !errors.Is(err, workspace.ErrNotRegular) {
				t.Errorf("Read = %v; want ErrNotRegular", err)
			}
			if b, err := os.ReadFile(filepath.Join(ws.Root, "victim.txt")); err == nil && string(b) != "keep\n" {
				t.Errorf("the symlink's target was written: %q", b)
			}
		})
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// FuzzRead reads arbitrary bytes as a log. Read must not panic, must
// return at most tail entries, only valid ones, and a tail read must
// return a suffix of what a full read returns.
func FuzzRead(f *testing.F) {
	valid := `{"time":"2026-11-30T12:00:00Z","execution_id":"a","tool":"fetch","summary":"GET example.com","decision":"allow","decided_by":"rule","outcome":"ok","bytes":1,"duration_ms":2}`
	f.Add([]byte(valid+"\n"+valid+"\n"), 1)                  // two good lines
	f.Add([]byte(valid+"\ngarbage\n"+valid), 2)              // malformed middle, no final newline
	f.Add([]byte("\n\n\n"), 0)                               // blank lines
	f.Add([]byte(`{"time":"x"}`+"\n"+valid+" trailing"), 5)  // bad time, trailing data
	f.Add([]byte(strings.Repeat("a", 40<<10)+"\n"+valid), 0) // over-long line
	f.Add([]byte{}, 3)                                       // empty log
	ws := workspace.Workspace{Root: f.TempDir()}
	if err := ws.EnsureDir(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, tail int) {
		if err := os.WriteFile(ws.AuditPath(), data, 0o600); err != nil {
			t.Fatal(err)
		}
		all, _ := audit.Read(ws, 0)
		got, err := audit.Read(ws, tail)
		if err != nil && !errors.Is(err, audit.ErrMalformedLine) {
			t.Fatalf("Read error %v; want nil or ErrMalformedLine", err)
		}
		if tail > 0 && len(got) > tail {
			t.Fatalf("Read(%d) returned %d entries", tail, len(got))
		}
		for _, e := range got {
			if err := e.Validate(); err != nil {
				t.Fatalf("Read returned an invalid entry: %v", err)
			}
		}
		if len(got) > len(all) {
			t.Fatalf("tail read returned %d entries, full read %d", len(got), len(all))
		}
		if diff := cmp.Diff(all[len(all)-len(got):], got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("tail read is not a suffix of the full read (-full +tail):\n%s", diff)
		}
	})
}
