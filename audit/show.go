package audit

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/ocfetch/ocfetch/safetext"
)

// WriteTable writes entries as the table a person reads (`ocfetch audit`,
// the demo): a header, then one row per entry with its time in the local
// zone, decision, what decided, summary, outcome, status ("-" for none),
// bytes and duration. Every text field goes through safetext.Line: a
// summary holds a host a page or a model chose.
func WriteTable(w io.Writer, entries []Entry) error {
	t := NewTable(w)
	for _, e := range entries {
		if err := t.Add(e); err != nil {
			return err
		}
	}
	return t.Flush()
}

// tableBlock is how many rows a [Table] aligns together.
const tableBlock = 1024

// Table writes [WriteTable]'s table row by row, for entries that are not
// all in memory ([Scan]): its columns are aligned within each block of
// 1,024 rows (the header with the first), so what it holds is one block
// whatever the number of rows. Up to 1,024 rows its output is
// WriteTable's.
type Table struct {
	tw   *tabwriter.Writer
	rows int
}

// NewTable returns a table writing to w, its header written.
func NewTable(w io.Writer) *Table {
	t := &Table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	fmt.Fprintln(t.tw, "TIME\tDECISION\tBY\tSUMMARY\tOUTCOME\tSTATUS\tBYTES\tDURATION")
	return t
}

// Add writes e's row; every 1,024 rows the block is flushed to w, and
// the error of that write is returned.
func (t *Table) Add(e Entry) error {
	status := "-"
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	fmt.Fprintf(t.tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
		e.Time.Local().Format(time.DateTime), safetext.Line(string(e.Decision)), safetext.Line(orDash(string(e.DecidedBy))),
		safetext.Line(e.Summary), safetext.Line(e.Outcome),
		status, e.Bytes, (time.Duration(e.DurationMS) * time.Millisecond).String())
	if t.rows++; t.rows%tableBlock == 0 {
		return t.tw.Flush()
	}
	return nil
}

// Flush writes the rows not yet written.
func (t *Table) Flush() error { return t.tw.Flush() }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// MalformedHint is what to tell a person about the lines [Read] skipped
// (err, wrapping [ErrMalformedLine]) in the log at path: where such a
// line may come from and how to look at it, naming the first one when
// its line number is known. It never quotes a line.
func MalformedHint(err error, path string) string {
	look := ""
	var le *LineError
	if errors.As(err, &le) && le.Line > 0 {
		look = " look at it with: " + lookAtLine(runtime.GOOS, le.Line, path) + ";"
	}
	return "ocfetch only appends whole lines, so a line it cannot read was cut short (a crash, a full disk), " +
		"edited by hand, or written by something else;" + look +
		" the other lines are shown; to start a fresh log, move the file aside (ocfetch never rewrites it)"
}

// lookAtLine is the command that prints line n of the file at path: sed
// for POSIX shells; on Windows, which has no sed, PowerShell's
// Get-Content (indexed from 0; the single-quoted path is literal there).
func lookAtLine(goos string, n int, path string) string {
	if goos == "windows" {
		return fmt.Sprintf("(Get-Content -LiteralPath %s)[%d]   # PowerShell", safetext.ShellQuote(path), n-1)
	}
	return fmt.Sprintf("sed -n %dp %s", n, safetext.ShellQuote(path))
}
