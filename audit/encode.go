package audit

import (
	"encoding/json"
	"strconv"
	"time"
)

// marshalLine appends e, as one JSON object, to b: exactly the bytes
// json.Marshal(e) gives (the fields in Entry's order under their tags,
// omitempty where tagged, time in RFC 3339 with nanoseconds, strings
// escaped as encoding/json escapes them), without its reflection. It is
// the encoding of every line Append writes, and it is tested against
// json.Marshal (TestMarshalLineIsJSONMarshal) and held to Entry's fields
// (TestMarshalLineKnowsEveryField): a field added to Entry,
// capability.Requirement or capability.Target fails the latter until it
// is written here.
//
// A value the fast path does not write byte for byte as encoding/json
// does (a string with a control character or a byte outside ASCII, a year
// outside 0–9999) is handed to json.Marshal itself, whose error (for such
// a year) is returned.
func marshalLine(b []byte, e *Entry) ([]byte, error) {
	if line, ok := appendLine(b, e); ok {
		return line, nil
	}
	return marshalCopy(b, *e)
}

// marshalCopy is json.Marshal of e appended to b. e is a copy: handing
// an entry to json.Marshal moves it to the heap, and only the entries
// appendLine cannot write need to go there.
func marshalCopy(b []byte, e Entry) ([]byte, error) {
	line, err := json.Marshal(&e)
	return append(b, line...), err
}

// appendLine appends e to b as marshalLine does, and reports whether it
// could: false (and the bytes past len(b) to be discarded) when a string
// of e is not printable ASCII, or its time is not UTC with a year
// time.Time's MarshalJSON writes. Each string is checked in the pass
// that escapes it.
func appendLine(b []byte, e *Entry) ([]byte, bool) {
	if y := e.Time.Year(); y < 0 || y > 9999 {
		return b, false
	}
	if _, off := e.Time.Zone(); off != 0 {
		return b, false // Append writes UTC; another zone's offset is json.Marshal's to check
	}
	w := lineWriter{b: b, plain: true}
	w.b = append(w.b, `{"time":"`...)
	w.b = e.Time.AppendFormat(w.b, time.RFC3339Nano)
	w.b = append(w.b, `","execution_id":`...)
	w.str(e.ExecutionID)
	w.b = append(w.b, `,"tool":`...)
	w.str(e.Tool)
	w.b = append(w.b, `,"summary":`...)
	w.str(e.Summary)
	if r := e.Requirement; r != nil {
		w.b = append(w.b, `,"requirement":{"capability":`...)
		w.str(string(r.Kind))
		w.b = append(w.b, `,"target":{"host":`...)
		w.str(r.Target.Host())
		w.b = append(w.b, `,"port":`...)
		w.b = strconv.AppendUint(w.b, uint64(r.Target.Port()), 10)
		w.b = append(w.b, "}}"...)
	}
	w.b = append(w.b, `,"decision":`...)
	w.str(string(e.Decision))
	w.b = append(w.b, `,"decided_by":`...)
	w.str(string(e.DecidedBy))
	if e.Rule != "" {
		w.b = append(w.b, `,"rule":`...)
		w.str(e.Rule)
	}
	w.b = append(w.b, `,"outcome":`...)
	w.str(e.Outcome)
	if e.Status != 0 {
		w.b = append(w.b, `,"status":`...)
		w.b = strconv.AppendInt(w.b, int64(e.Status), 10)
	}
	w.b = append(w.b, `,"bytes":`...)
	w.b = strconv.AppendInt(w.b, e.Bytes, 10)
	w.b = append(w.b, `,"duration_ms":`...)
	w.b = strconv.AppendInt(w.b, e.DurationMS, 10)
	if e.BytesUp != 0 {
		w.b = append(w.b, `,"bytes_up":`...)
		w.b = strconv.AppendInt(w.b, e.BytesUp, 10)
	}
	if e.BytesDown != 0 {
		w.b = append(w.b, `,"bytes_down":`...)
		w.b = strconv.AppendInt(w.b, e.BytesDown, 10)
	}
	if e.RunID != "" {
		w.b = append(w.b, `,"run_id":`...)
		w.str(e.RunID)
	}
	if e.TrustedBy != "" {
		w.b = append(w.b, `,"trusted_by":`...)
		w.str(e.TrustedBy)
	}
	if !w.plain {
		return b, false
	}
	return append(w.b, '}'), true
}

// lineWriter is a line being appended: plain turns false at the first
// byte of a string that is not printable ASCII, which only json.Marshal
// writes.
type lineWriter struct {
	b     []byte
	plain bool
}

// How encoding/json writes a byte of printable ASCII in a string: as
// itself, or escaped (the quote and the backslash, and <, > and & as
// \u003c, \u003e and \u0026, its HTML-safe default); anything else is
// not plain.
const (
	byteAsIs = iota
	byteEscaped
	byteNotPlain
)

var byteKind = func() (t [256]uint8) {
	for c := range t {
		if c < 0x20 || c > 0x7e {
			t[c] = byteNotPlain
		}
	}
	for _, c := range `"\<>&` {
		t[c] = byteEscaped
	}
	return t
}()

// str appends s as a JSON string escaped as encoding/json escapes it,
// when s is printable ASCII.
func (w *lineWriter) str(s string) {
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		switch byteKind[s[i]] {
		case byteAsIs:
			continue
		case byteNotPlain:
			w.plain = false
			return
		}
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '<':
			esc = `\u003c`
		case '>':
			esc = `\u003e`
		default: // '&'
			esc = `\u0026`
		}
		w.b = append(w.b, s[start:i]...)
		w.b = append(w.b, esc...)
		start = i + 1
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
}
