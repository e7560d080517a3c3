package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/capability"
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
	// The path is remembered ([securefile.Memo]): a front end opens the
	// log on every call.
	path := securefile.Memo(ws.Root, workspace.DirName+"/"+workspace.AuditFile, ws.AuditPath)
	return &Log{ws: ws, path: path, now: time.Now}
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

// ErrMalformedLine is wrapped by every [LineError].
var ErrMalformedLine = errors.New("malformed audit line")

// LineError names a line of the log that is not a valid entry. It never
// quotes the line.
type LineError struct {
	Path string
	// Line is the 1-based line number, or 0 when unknown: a tail read
	// that did not reach the start of the file cannot count lines.
	Line int
	// FromEnd is the line's position from the end, 1 for the last line.
	FromEnd int
	// Offset is the byte offset of the line's start, -1 when unknown.
	Offset int64
	Err    error
}

func (e *LineError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Line == 0 {
		where = fmt.Sprintf("line %d from the end", e.FromEnd)
	}
	if e.Offset >= 0 {
		where += fmt.Sprintf(" (byte %d)", e.Offset)
	}
	return fmt.Sprintf("audit log %s: %s: %v", e.Path, where, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// maxLineErrors bounds the line errors Read reports one by one.
const maxLineErrors = 20

// Read returns the entries of the last tail lines of ws's audit log, oldest
// first; tail ≤ 0 means every line. A missing log is no entries.
//
// Read seeks from the end and reads only those lines, so its cost does not
// grow with the log. A line that is not one JSON object passing
// [Entry.Validate] (unknown fields are allowed, for logs written by later
// versions) is skipped and reported as a [*LineError] wrapping
// [ErrMalformedLine]; the returned entries are then still valid, and err
// joins the line errors (the first 20, and a count of the rest). A line
// longer than [MaxLineBytes] is reported without being parsed, and may end
// the scan (lines before it are then not read), which bounds what a
// garbage-filled log costs. A log that is a symlink or not a regular file is
// refused as in [Log.Append].
func Read(ws workspace.Workspace, tail int) ([]Entry, error) {
	path := ws.AuditPath()
	f, err := workspace.OpenRead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	spans, complete, err := lastLines(f, fi.Size(), tail)
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	var entries []Entry
	var errs []error
	more := 0
	fail := func(i int, s span, err error) {
		if len(errs) == maxLineErrors {
			more++
			return
		}
		le := &LineError{Path: path, FromEnd: len(spans) - i, Offset: s.start, Err: fmt.Errorf("%w: %v", ErrMalformedLine, err)}
		if complete {
			le.Line = i + 1
		}
		errs = append(errs, le)
	}
	buf := make([]byte, 0, 4096)
	for i, s := range spans {
		if s.start < 0 || s.end-s.start > MaxLineBytes {
			fail(i, s, fmt.Errorf("longer than %d bytes; earlier lines not read", MaxLineBytes))
			continue
		}
		buf = buf[:s.end-s.start]
		if _, err := f.ReadAt(buf, s.start); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		var e Entry
		if err := json.Unmarshal(buf, &e); err != nil {
			fail(i, s, describe(err))
			continue
		}
		if err := e.Validate(); err != nil {
			fail(i, s, err)
			continue
		}
		entries = append(entries, e)
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("audit log %s: %w: %d more malformed lines", path, ErrMalformedLine, more))
	}
	return entries, errors.Join(errs...)
}

// describe names what json.Unmarshal refused in a line without quoting
// the line: the decoders' own texts can (time.Time's parse error quotes
// the string, a type error quotes a number literal), so only fixed words,
// a field name and an offset are kept, and an error describe does not
// know is reported as such, without its text.
func describe(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d of the line: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		kind, _, _ := strings.Cut(te.Value, " ") // "number 1e999": the kind only
		return fmt.Errorf("field %q: a JSON %s of the wrong type", te.Field, kind)
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		return errors.New(`field "time": not an RFC 3339 time`)
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON")
	case errors.Is(err, capability.ErrInvalidHost), errors.Is(err, capability.ErrInvalidPort):
		return err // capability's texts name what is wrong, never the value
	}
	return errors.New("a field holds an invalid value")
}

// span is a line's byte range [start, end), newline excluded. start is -1
// for an over-long line whose start the scan did not look for.
type span struct{ start, end int64 }

// scanBlock is how much lastLines reads at a time, backwards.
const scanBlock = 32 << 10

// lastLines finds the last n lines (all if n ≤ 0) of a file of size bytes
// by reading backwards from its end, and returns them oldest first;
// complete reports that the scan reached the start of the file, so the
// spans are every line. A final line without a newline counts as a line.
// The scan stops at a line longer than MaxLineBytes, which is returned
// with start -1, so it reads at most about n lines plus one
// MaxLineBytes+scanBlock.
func lastLines(r io.ReaderAt, size int64, n int) (spans []span, complete bool, err error) {
	if size == 0 {
		return nil, true, nil
	}
	buf := make([]byte, scanBlock)
	lineEnd := size // end of the line being scanned (exclusive, no newline)
	pos := size     // bytes before pos not yet scanned
	full := func() bool { return n > 0 && len(spans) == n }
	for pos > 0 && !full() {
		start := max(pos-scanBlock, 0)
		b := buf[:pos-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return nil, false, err
		}
		for i := len(b) - 1; i >= 0 && !full(); i-- {
			if b[i] != '\n' {
				continue
			}
			p := start + int64(i)
			if p == size-1 {
				lineEnd = p // the last line's terminator
				continue
			}
			spans = append(spans, span{p + 1, lineEnd})
			lineEnd = p
		}
		pos = start
		if !full() && lineEnd-pos > MaxLineBytes {
			spans = append(spans, span{-1, lineEnd})
			slicesReverse(spans)
			return spans, false, nil
		}
	}
	if !full() {
		spans = append(spans, span{0, lineEnd})
	}
	complete = !full() || (len(spans) > 0 && spans[len(spans)-1].start == 0)
	slicesReverse(spans)
	return spans, complete, nil
}

func slicesReverse(s []span) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
