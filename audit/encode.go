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
	if !plainEntry(e) {
		line, err := json.Marshal(e)
		return append(b, line...), err
	}
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","execution_id":`...)
	b = appendString(b, e.ExecutionID)
	b = append(b, `,"tool":`...)
	b = appendString(b, e.Tool)
	b = append(b, `,"summary":`...)
	b = appendString(b, e.Summary)
	if r := e.Requirement; r != nil {
		b = append(b, `,"requirement":{"capability":`...)
		b = appendString(b, string(r.Kind))
		b = append(b, `,"target":{"host":`...)
		b = appendString(b, r.Target.Host())
		b = append(b, `,"port":`...)
		b = strconv.AppendUint(b, uint64(r.Target.Port()), 10)
		b = append(b, "}}"...)
	}
	b = append(b, `,"decision":`...)
	b = appendString(b, string(e.Decision))
	b = append(b, `,"decided_by":`...)
	b = appendString(b, string(e.DecidedBy))
	if e.Rule != "" {
		b = append(b, `,"rule":`...)
		b = appendString(b, e.Rule)
	}
	b = append(b, `,"outcome":`...)
	b = appendString(b, e.Outcome)
	if e.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(e.Status), 10)
	}
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.Bytes, 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, e.DurationMS, 10)
	if e.BytesUp != 0 {
		b = append(b, `,"bytes_up":`...)
		b = strconv.AppendInt(b, e.BytesUp, 10)
	}
	if e.BytesDown != 0 {
		b = append(b, `,"bytes_down":`...)
		b = strconv.AppendInt(b, e.BytesDown, 10)
	}
	if e.RunID != "" {
		b = append(b, `,"run_id":`...)
		b = appendString(b, e.RunID)
	}
	if e.TrustedBy != "" {
		b = append(b, `,"trusted_by":`...)
		b = appendString(b, e.TrustedBy)
	}
	return append(b, '}'), nil
}

// plainEntry reports whether every string of e is printable ASCII (what
// Validate lets through) and its time is UTC with a year time.Time's
// MarshalJSON writes: what marshalLine writes itself.
func plainEntry(e *Entry) bool {
	if y := e.Time.Year(); y < 0 || y > 9999 {
		return false
	}
	if _, off := e.Time.Zone(); off != 0 {
		return false // Append writes UTC; another zone's offset is json.Marshal's to check
	}
	ok := printable(e.ExecutionID) && printable(e.Tool) && printable(e.Summary) &&
		printable(string(e.Decision)) && printable(string(e.DecidedBy)) && printable(e.Rule) &&
		printable(e.Outcome) && printable(e.RunID) && printable(e.TrustedBy)
	if r := e.Requirement; ok && r != nil {
		ok = printable(string(r.Kind)) && printable(r.Target.Host())
	}
	return ok
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// appendString appends s, printable ASCII, as a JSON string escaped as
// encoding/json escapes it: the quote and the backslash, and <, > and &
// as \u003c, \u003e and \u0026 (its HTML-safe default).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
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
		case '&':
			esc = `\u0026`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
