package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/workspace"
)

// ErrMalformedLine is wrapped by every [LineError].
var ErrMalformedLine = errors.New("malformed audit line")

// LineError names a line of the log that is not a valid entry. It never
// quotes the line.
type LineError struct {
	Path string
	// Line is the 1-based line number, or 0 when unknown: a tail read
	// that did not reach the start of the file cannot count lines.
	Line int
	// FromEnd is the line's position from the end, 1 for the last line,
	// or 0 when unknown: a read from the start ([Scan], [Read] of every
	// line) does not look ahead.
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

// maxLineErrors bounds the line errors a read reports one by one.
const maxLineErrors = 20

// Read returns the entries of the last tail lines of ws's audit log, oldest
// first; tail ≤ 0 means every line. A missing log is no entries.
//
// With tail > 0, Read seeks from the end and reads only those lines, so
// its cost does not grow with the log; a line longer than [MaxLineBytes]
// is reported without being parsed and ends that scan (lines before it
// are then not read), which bounds what a garbage-filled log costs. With
// tail ≤ 0 it reads from the start as [Scan] does, holding one line at a
// time besides the entries it returns. A line that is not one JSON object
// passing [Entry.Validate] (unknown fields are allowed, for logs written
// by later versions) is skipped and reported as a [*LineError] wrapping
// [ErrMalformedLine]; the returned entries are then still valid, and err
// joins the line errors (the first 20, and a count of the rest). A log
// that is a symlink or not a regular file is refused as in [Log.Append].
func Read(ws workspace.Workspace, tail int) ([]Entry, error) {
	if tail <= 0 {
		var entries []Entry
		err := Scan(ws, func(e Entry) error {
			entries = append(entries, e)
			return nil
		})
		return entries, err
	}
	f, path, err := openLog(ws)
	if f == nil {
		return nil, err
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
	bad := lineErrors{path: path}
	fail := func(i int, s span, err error) {
		le := LineError{FromEnd: len(spans) - i, Offset: s.start}
		if complete {
			le.Line = i + 1
		}
		bad.add(le, err)
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
		e, err := parseLine(buf)
		if err != nil {
			fail(i, s, err)
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad.err()
}

// Scan reads ws's audit log from the start and calls fn with each valid
// entry, in the order written; it stops at fn's first error and returns
// it. A missing log is no entries. Whatever the log's size, Scan holds
// one line at a time (a buffer of 32 KiB): what fn keeps is the caller's.
//
// A malformed line is skipped and reported as [Read] reports it, with its
// line number and offset: the returned error joins the first 20 line
// errors and a count of the rest (no error is built for those), and
// wraps [ErrMalformedLine]. A line longer than [MaxLineBytes] is reported
// without being parsed, and the lines after it are read. A log that is a
// symlink or not a regular file is refused as in [Log.Append].
func Scan(ws workspace.Workspace, fn func(Entry) error) error {
	f, path, err := openLog(ws)
	if f == nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, scanBlock)
	bad := lineErrors{path: path}
	var offset int64
	for n := 1; ; n++ {
		line, size, err := nextLine(r)
		if err != nil {
			return fmt.Errorf("audit log %s: %w", path, err)
		}
		if size == 0 {
			return bad.err()
		}
		le := LineError{Line: n, Offset: offset}
		offset += size
		if line == nil {
			bad.add(le, fmt.Errorf("longer than %d bytes", MaxLineBytes))
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			bad.add(le, err)
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// openLog opens ws's audit log for reading. A missing log is (nil, path,
// nil); any other failure is (nil, path, err).
func openLog(ws workspace.Workspace) (*os.File, string, error) {
	path := ws.AuditPath()
	f, err := workspace.OpenRead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("audit log: %w", err)
	}
	return f, path, nil
}

// nextLine returns the next line of r without its newline, and the
// bytes it took in the file (newline included); size 0 is the end of
// the file. A line longer than MaxLineBytes is read through and
// returned as nil, with its size. The line is r's buffer: valid until
// the next read.
func nextLine(r *bufio.Reader) (line []byte, size int64, err error) {
	b, err := r.ReadSlice('\n')
	size = int64(len(b))
	long := false
	for errors.Is(err, bufio.ErrBufferFull) {
		long = true
		b, err = r.ReadSlice('\n')
		size += int64(len(b))
	}
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if long || len(b) > MaxLineBytes {
		return nil, size, nil
	}
	return b, size, nil
}

// errNotObject: a line that does not start with '{' (blank, or garbage)
// is named without asking the JSON decoder, whose refusal of it costs a
// few hundred bytes of garbage per line of a hostile log.
var errNotObject = errors.New("not a JSON object")

// parseLine decodes one line into a valid entry. A line json.Unmarshal
// refuses is returned as a decodeError, described (without quoting the
// line) only if it is reported.
func parseLine(b []byte) (Entry, error) {
	if t := bytes.TrimLeft(b, " \t\r"); len(t) == 0 || t[0] != '{' {
		return Entry{}, errNotObject
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, decodeError{err}
	}
	if err := e.Validate(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// decodeError is json.Unmarshal's refusal of a line, as it gave it: its
// text may quote the line, so it is only ever shown through describe.
type decodeError struct{ err error }

func (d decodeError) Error() string { return describe(d.err).Error() }

// lineErrors collects the malformed lines of one read: the first
// maxLineErrors as *LineError, and a count of the rest, for which no
// error is built.
type lineErrors struct {
	path string
	errs []error
	more int
}

// add records the line le (its place; its Err is set here from why).
func (b *lineErrors) add(le LineError, why error) {
	if len(b.errs) == maxLineErrors {
		b.more++
		return
	}
	if d, ok := why.(decodeError); ok {
		why = describe(d.err)
	}
	kept := le // le itself does not escape: a line past the cap costs nothing
	kept.Path = b.path
	kept.Err = fmt.Errorf("%w: %v", ErrMalformedLine, why)
	b.errs = append(b.errs, &kept)
}

// err joins what was recorded; nil when no line was malformed.
func (b *lineErrors) err() error {
	if b.more > 0 {
		b.errs = append(b.errs, fmt.Errorf("audit log %s: %w: %d more malformed lines", b.path, ErrMalformedLine, b.more))
	}
	return errors.Join(b.errs...)
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
