package audit

import (
	"fmt"
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/workspace"
)

// MaxLineBytes bounds one audit line, newline included: [Log.Append]
// refuses a longer entry and [Read] reports a longer line as malformed.
const MaxLineBytes = 16 << 10

// filePerm is audit.jsonl's mode: what was fetched, when, is the user's
// business only.
const filePerm = 0o600

// Log appends to a workspace's audit log. A Log is safe for concurrent use.
// The descriptor of each log is opened once (O_APPEND, [workspace.OpenAppend])
// and kept open by the process ([securefile.Keep], at most 16 logs); before
// each Preflight and Append the name is checked to lead still to the file
// the descriptor writes — a regular file, not a symlink, writable by this
// user: where change notification covers the log's path, by the absence
// of a report on it since the last check (no stat; the append drains the
// reports once more, so a change made during the call is seen), else by
// one lstat of .oc_chat and one fstatat of audit.jsonl under its open
// handle (Preflight) and one lstat of the path (Append). Anything else
// (rotated, replaced, deleted, made read-only, a symlink planted) sends
// the call through the full checked open again, with its errors, so a
// rotated or deleted log is recreated.
// A nil *Log discards entries.
type Log struct {
	ws   workspace.Workspace
	path string
	now  func() time.Time
	sink Sink
}

// Sink receives a copy of every line a [Log] has written (an exporter to
// an organisation's collector: package auditexport). Export must not
// block and cannot fail the call: the file stays the record of truth.
type Sink interface {
	Export(Entry)
}

// WithSink returns a copy of l that also hands every line it writes to s,
// after the line is in the file. A nil s (or l) changes nothing.
func (l *Log) WithSink(s Sink) *Log {
	if l == nil || s == nil {
		return l
	}
	c := *l
	c.sink = s
	return &c
}

// Open returns the log of ws, <root>/.oc_chat/audit.jsonl. Nothing is
// created until the first Append.
func Open(ws workspace.Workspace) *Log {
	return &Log{ws: ws, path: ws.AuditPath(), now: time.Now}
}

// Path returns the log's file path.
func (l *Log) Path() string { return l.path }

// Append writes e as one line. A zero e.Time is set to now; the time is
// stored in UTC. e must pass [Entry.Validate] and marshal to at most
// [MaxLineBytes].
//
// The line goes out in a single write on a file opened
// O_WRONLY|O_APPEND|O_CREATE (mode 0600, .oc_chat created 0755 if needed)
// through the workspace's [os.Root] ([workspace.OpenAppend]), so concurrent
// appenders — goroutines or processes — never interleave or tear lines.
// Append refuses, wrapping workspace.ErrNotRegular (and
// workspace.ErrSymlink), to write through a symlink at audit.jsonl or at
// .oc_chat (a planted link must not turn the log into a write into another
// file) or to anything that is not a regular file (a FIFO, a device, a
// directory). It does not fsync: a crash may lose the last lines, never
// corrupt earlier ones.
func (l *Log) Append(e Entry) error {
	if l == nil {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	e.Time = e.Time.UTC()
	if err := e.Validate(); err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	buf := linePool.Get().(*[]byte)
	defer putLine(buf)
	line, err := marshalLine((*buf)[:0], &e)
	if err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	line = append(line, '\n')
	*buf = line
	if len(line) > MaxLineBytes {
		return fmt.Errorf("audit log %s: %w: line of %d bytes exceeds %d", l.path, ErrInvalidEntry, len(line), MaxLineBytes)
	}
	if err := l.write(line); err != nil {
		return err
	}
	// The exporter sees only lines the record of truth holds.
	if l.sink != nil {
		l.sink.Export(e)
	}
	return nil
}

// linePool holds the buffers lines are encoded into: the write copies a
// line into the file, so its buffer serves the next one.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// putLine returns a line's buffer to linePool, unless an unusually long
// line grew it.
func putLine(b *[]byte) {
	if cap(*b) <= 4<<10 {
		linePool.Put(b)
	}
}

// write appends line with one Write: on a regular file opened O_APPEND
// that is one write(2) (WriteFile on Windows) placed at the end of the
// file. The descriptor is kept open for the next line (securefile.Keep).
func (l *Log) write(line []byte) error {
	if ok, err := securefile.AppendKept(l.path, line); ok {
		if err != nil {
			return fmt.Errorf("audit log %s: %w", l.path, err)
		}
		return nil
	}
	f, err := workspace.OpenAppend(l.path, filePerm)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	securefile.Keep(l.path, f)
	return nil
}
