package audit

import (
	"errors"
	"fmt"
	"io"
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
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tDECISION\tBY\tSUMMARY\tOUTCOME\tSTATUS\tBYTES\tDURATION")
	for _, e := range entries {
		status := "-"
		if e.Status != 0 {
			status = strconv.Itoa(e.Status)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
			e.Time.Local().Format(time.DateTime), safetext.Line(string(e.Decision)), safetext.Line(orDash(string(e.DecidedBy))),
			safetext.Line(e.Summary), safetext.Line(e.Outcome),
			status, e.Bytes, (time.Duration(e.DurationMS) * time.Millisecond).String())
	}
	return tw.Flush()
}

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
		look = fmt.Sprintf(" look at it with: sed -n %dp %s;", le.Line, safetext.ShellQuote(path))
	}
	return "ocfetch only appends whole lines, so a line it cannot read was cut short (a crash, a full disk), " +
		"edited by hand, or written by something else;" + look +
		" the other lines are shown; to start a fresh log, move the file aside (ocfetch never rewrites it)"
}
