package fetch

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ocfetch/ocfetch/safetext"
)

// summaryHeaders is the order the renderer shows the header summary in
// (seed 000's LOCAL_RESPONSE_HEADERS).
var summaryHeaders = []string{"content-type", "content-length", "location", "last-modified", "etag", "server"}

// Reader is who reads the text form of an [Output]. The form differs only
// where the reader acts on it: how to read on.
type Reader uint8

const (
	// ForModel is the tool result's text: the MCP server and the library
	// (tool.Result.Content). It is the zero value.
	ForModel Reader = iota
	// ForPerson is what `ocfetch get` prints: content that ends in a newline, and the read-on hint as the flag to pass.
	ForPerson
)

// RenderOptions say who reads the text and where it goes.
type RenderOptions struct {
	// For is the reader. The zero value is the model.
	For Reader
	// Terminal passes the content through [safetext.TerminalWriter], so
	// that no escape sequence of the server's reaches a terminal. Without
	// it (a pipe, a model) the content's bytes are written untouched.
	Terminal bool
	// SavedTo, when set, is the file the body was written to (ocfetch get
	// -o): a line "wrote N bytes to FILE" stands for the content.
	SavedTo string
}

// WriteOutput is the one renderer of a delivered response, shared by the
// CLI, the MCP server and the library: a status line, the final URL, the
// title (for a person and a model alike), the header summary one "name: value" a line, a
// blank line, the content, and then any notes and how to read on, each on
// its own line in brackets. What the server chose and the content does not
// frame (URL, title, header values, notes) goes through [safetext.Line], so
// it is one line without control, bidi or invalid bytes whatever the reader.
// A front end that shows the parts separately (ocfetch get --json, MCP
// structured content) uses the Output fields instead.
//
// It returns the first error of w.
func WriteOutput(w io.Writer, out Output, opt RenderOptions) error {
	ew := &errWriter{w: w}
	writeHead(ew, out)
	if opt.SavedTo != "" {
		ew.str("wrote ")
		ew.int(out.Bytes)
		ew.str(" bytes to ", safetext.Line(opt.SavedTo), "\n")
		return ew.err
	}
	if opt.Terminal {
		tw := safetext.NewTerminalWriter(ew)
		io.WriteString(tw, out.Content)
		tw.Flush()
	} else {
		ew.str(out.Content)
	}
	if opt.For == ForPerson {
		if out.Content != "" && !strings.HasSuffix(out.Content, "\n") {
			ew.str("\n")
		}
		for _, n := range out.Notes {
			ew.str("\n[", safetext.Line(n), "]\n")
		}
		if out.Truncated {
			ew.str("\n… ")
			ew.int(int64(out.Remaining))
			ew.str(" more characters: --start-index ")
			ew.int(int64(out.NextStartIndex))
			ew.str("\n")
		}
		return ew.err
	}
	if !tailless(out) {
		writeTail(ew, out)
	}
	return ew.err
}

// writeHead writes what comes before the content: the status line, the
// URL, the title, the header summary and a blank line. Each piece is
// written as it is: no string is concatenated only to be copied into w.
func writeHead(ew *errWriter, out Output) {
	ew.str("HTTP ")
	ew.status(out.Status)
	if t := http.StatusText(out.Status); t != "" {
		ew.str(" ", t)
	}
	ew.str("\nurl: ", safetext.Line(out.URL), "\n")
	if out.Title != "" {
		ew.str("title: ", safetext.Line(out.Title), "\n")
	}
	for _, name := range summaryHeaders {
		if v, ok := out.Headers[name]; ok {
			ew.str(name, ": ", safetext.Line(v), "\n")
		}
	}
	ew.str("\n")
}

// tailless reports whether a model's text of out ends with its content:
// no note, no read-on hint, no cache line ([writeTail] writes nothing).
func tailless(out Output) bool {
	return len(out.Notes) == 0 && !out.Truncated && !out.Cached
}

// writeTail writes what follows the content in a model's text: the notes,
// how to read on, where a cached response came from.
func writeTail(ew *errWriter, out Output) {
	for _, n := range out.Notes {
		ew.str("\n\n[", safetext.Line(n), "]")
	}
	if out.Truncated {
		ew.str("\n\n[content truncated: ")
		ew.int(int64(out.Remaining))
		ew.str(" more characters; call again with start_index=")
		ew.int(int64(out.NextStartIndex))
		ew.str(" to read on]")
	}
	if out.Cached {
		ew.str("\n\n(from ocfetch's response cache: fetched ", out.FetchedAt, ")")
	}
}

// Render returns the text a model reads ([WriteOutput] for [ForModel]):
// tool.Result.Content is Render of the Output.
func Render(out Output) string {
	var b strings.Builder
	b.Grow(len(out.Content) + 256)
	WriteOutput(&b, out, RenderOptions{})
	return b.String()
}

// headRoom is the room [readBody] leaves before a body for the head of
// its rendered result ([renderOver]): a status line, a URL, a title and
// six header lines fit in it unless they are long.
const headRoom = 1 << 10

// renderOver returns [Render](out) for a body read into buf[room:] (the
// buffer [readBody] filled, buf[:room] its room): when the text ends with
// the content (no tail, [tailless]), the content is buf's body from its
// first byte (the body was handed on as it is: a raw or plain text page
// in valid UTF-8) and the head fits in the room, the head is written in
// the room just before the body and the text is the bytes from there to
// the content's end — the page is not copied a second time. Otherwise it
// is Render(out). Nothing writes buf after this (its strings share it),
// and nothing else uses the room.
func renderOver(out Output, buf []byte, room int) string {
	if room <= 0 || len(buf) <= room || len(out.Content) == 0 || !tailless(out) ||
		unsafe.StringData(out.Content) != &buf[room] || len(out.Content) > len(buf)-room {
		return Render(out)
	}
	ew := errWriter{room: buf[:0:room]}
	writeHead(&ew, out)
	if ew.err != nil { // the head does not fit
		return Render(out)
	}
	n := len(ew.room)
	copy(buf[room-n:room], ew.room) // overlapping: copy moves it as memmove does
	return unsafe.String(&buf[room-n], n+len(out.Content))
}

// errNoRoom is an errWriter's answer to a write past its room.
var errNoRoom = errors.New("no room left")

// errWriter keeps the first write error and writes nothing after it.
// With w nil it writes to room, within room's capacity: a write that
// would pass it is refused (errNoRoom) and nothing of it is written.
type errWriter struct {
	w    io.Writer
	room []byte
	err  error
	num  [20]byte // a number being written ([errWriter.int])
}

// toRoom appends s to e.room if it fits, else keeps errNoRoom.
func (e *errWriter) toRoom(s string) (int, error) {
	if len(s) > cap(e.room)-len(e.room) {
		e.err = errNoRoom
		return 0, e.err
	}
	e.room = append(e.room, s...)
	return len(s), nil
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.w == nil {
		return e.toRoom(unsafe.String(unsafe.SliceData(p), len(p)))
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// WriteString writes s without the copy into a []byte that io.WriteString
// makes for a writer without it (the content of a page is most of what is
// rendered).
func (e *errWriter) WriteString(s string) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.w == nil {
		return e.toRoom(s)
	}
	n, err := io.WriteString(e.w, s)
	if err == nil && n < len(s) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// str writes each of s in turn.
func (e *errWriter) str(s ...string) {
	for _, p := range s {
		e.WriteString(p)
	}
}

// status writes an HTTP status code: a three-digit one from digits,
// so that nothing of e is handed to e.w (renderOver keeps its errWriter
// on the stack).
func (e *errWriter) status(code int) {
	if code < 100 || code > 999 {
		e.str(strconv.Itoa(code))
		return
	}
	a, b, c := code/100, code/10%10, code%10
	e.str(digits[a:a+1], digits[b:b+1], digits[c:c+1])
}

const digits = "0123456789"

// int writes n in decimal, formatted in e's own buffer.
func (e *errWriter) int(n int64) {
	e.Write(strconv.AppendInt(e.num[:0], n, 10))
}
