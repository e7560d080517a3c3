package audit_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
)

// TestWriteTable: one header and one row per entry, a missing status and
// decider shown as "-", the duration as Go writes it, and a control
// character of a summary never reaching the terminal.
func TestWriteTable(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	var b bytes.Buffer
	err := audit.WriteTable(&b, []audit.Entry{
		{Time: at, Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Summary: "GET example.com", Outcome: audit.OutcomeOK, Status: 200, Bytes: 512, DurationMS: 1500},
		{Time: at, Decision: audit.DecisionRefused, Summary: "GET evil\x1b[2J.example", Outcome: "not_approved"},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("table has %d lines; want 3:\n%s", len(lines), b.String())
	}
	for i, want := range [][]string{
		{"TIME", "DECISION", "BY", "SUMMARY", "OUTCOME", "STATUS", "BYTES", "DURATION"},
		{"2026-12-01", "10:00:00", "allow", "rule", "GET", "example.com", "ok", "200", "512", "1.5s"},
		{"2026-12-01", "10:00:00", string(audit.DecisionRefused), "-", "not_approved", "-", "0", "0s"},
	} {
		fields := strings.Fields(lines[i])
		for _, w := range want {
			if !containsField(fields, w) {
				t.Errorf("line %d = %q; want a column %q", i, lines[i], w)
			}
		}
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("the table holds an escape character:\n%q", b.String())
	}
}

// TestTableStreamsInBlocks: a Table holds one block of 1,024 rows, then
// writes it out (a failed write is Add's error); WriteTable's output is
// the same table.
func TestTableStreamsInBlocks(t *testing.T) {
	e := audit.Entry{Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local), Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Summary: "GET example.com", Outcome: audit.OutcomeOK}
	var b bytes.Buffer
	tab := audit.NewTable(&b)
	for i := range 1023 {
		if err := tab.Add(e); err != nil || b.Len() != 0 {
			t.Fatalf("row %d: Add = %v with %d bytes written; want the block held", i+1, err, b.Len())
		}
	}
	if err := tab.Add(e); err != nil || strings.Count(b.String(), "\n") != 1025 {
		t.Fatalf("row 1024: Add = %v, %d lines written; want the header and 1,024 rows", err, strings.Count(b.String(), "\n"))
	}
	if err := tab.Add(e); err != nil || tab.Flush() != nil || strings.Count(b.String(), "\n") != 1026 {
		t.Fatalf("after Flush: %d lines; want 1,026", strings.Count(b.String(), "\n"))
	}
	var whole bytes.Buffer
	if err := audit.WriteTable(&whole, slices.Repeat([]audit.Entry{e}, 1025)); err != nil || whole.String() != b.String() {
		t.Errorf("WriteTable of the same rows differs (err %v)", err)
	}

	tab = audit.NewTable(failWriter{})
	var err error
	for range 1024 {
		err = tab.Add(e)
	}
	if err == nil {
		t.Error("Add of row 1,024 to a failing writer: no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func containsField(fields []string, w string) bool {
	for _, f := range fields {
		if f == w {
			return true
		}
	}
	return false
}

// TestMalformedHint: the hint names the first skipped line's number and
// the log, shell-quoted, when the number is known, and never the line.
func TestMalformedHint(t *testing.T) {
	path := "/tmp/my ws/.oc_chat/audit.jsonl"
	err := errors.Join(&audit.LineError{Path: path, Line: 7, Offset: 100, Err: audit.ErrMalformedLine},
		&audit.LineError{Path: path, Line: 9, Offset: 200, Err: audit.ErrMalformedLine})
	got := audit.MalformedHint(fmt.Errorf("read: %w", err), path)
	want := "look at it with: sed -n 7p '/tmp/my ws/.oc_chat/audit.jsonl';"
	if runtime.GOOS == "windows" {
		want = "look at it with: (Get-Content -LiteralPath '/tmp/my ws/.oc_chat/audit.jsonl')[6]   # PowerShell;"
	}
	if !strings.Contains(got, want) {
		t.Errorf("MalformedHint = %q; want it to hold %q", got, want)
	}
	tail := audit.MalformedHint(&audit.LineError{Path: path, FromEnd: 2, Offset: -1, Err: audit.ErrMalformedLine}, path)
	if strings.Contains(tail, "sed -n") || strings.Contains(tail, "Get-Content") || !strings.Contains(tail, "move the file aside") {
		t.Errorf("MalformedHint of a line counted from the end = %q; want no line number, and what to do", tail)
	}
}
