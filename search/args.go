package search

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Bounds on a call's arguments.
const (
	// MaxArgsBytes bounds the raw arguments document.
	MaxArgsBytes = 16 << 10
	// MaxQueryRunes bounds the query.
	MaxQueryRunes = 400
	// MaxResults is the most results a call may ask for (Brave's and
	// Tavily's own cap).
	MaxResults = 20
	// DefaultResults is the count of a call that sets none.
	DefaultResults = 10
)

type args struct {
	Query    string
	HasQuery bool
	Count    int64
	HasCount bool
}

var argsDoc = strictjson.Walker{MaxDepth: 1, Keys: []string{"query", "count"}}

// errArgs is the refusal for malformed arguments. A message names a field,
// never a value: the query may hold a secret.
func errArgs(msg string) *refusal.Error {
	return refusal.New(refusal.InvalidArguments, msg).
		WithHint(`pass one JSON object: {"query": "…", "count": 10} (count 1 to ` + strconv.Itoa(MaxResults) + `)`)
}

// decodeArgs decodes argsJSON strictly (strictjson: valid UTF-8, one
// object, no unknown or duplicate key, no trailing data) and checks the
// query: 1 to MaxQueryRunes runes, not only white space, no control
// character (a newline could smuggle a second line to a backend that
// logs).
func decodeArgs(argsJSON string) (args, error) {
	var a args
	if len(argsJSON) > MaxArgsBytes {
		return a, errArgs("arguments are larger than 16 KiB")
	}
	err := argsDoc.Walk([]byte(argsJSON), func(p strictjson.Path, v strictjson.Value) error {
		if len(p) == 0 {
			if v.Kind != strictjson.Object {
				return errArgs("arguments must be a JSON object")
			}
			return nil
		}
		switch p[0].Key {
		case "query":
			if v.Kind != strictjson.String {
				return errArgs("field query must be a string")
			}
			a.Query, a.HasQuery = v.Text(), true
		case "count":
			if v.Kind == strictjson.Null {
				return nil
			}
			n, ok := strictjson.Int(v.Raw, 1, MaxResults)
			if v.Kind != strictjson.Number || !ok {
				return errArgs("field count must be an integer from 1 to " + strconv.Itoa(MaxResults))
			}
			a.Count, a.HasCount = n, true
		}
		return nil
	})
	if err != nil {
		return a, walkError(err)
	}
	switch {
	case !a.HasQuery:
		return a, errArgs("field query is required")
	case strings.TrimSpace(a.Query) == "":
		return a, errArgs("field query is empty")
	case utf8.RuneCountInString(a.Query) > MaxQueryRunes:
		return a, errArgs("field query is longer than " + strconv.Itoa(MaxQueryRunes) + " characters")
	case strings.ContainsFunc(a.Query, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }):
		return a, errArgs("field query must not contain control characters (newlines, tabs, …)")
	}
	return a, nil
}

func walkError(err error) error {
	if r, ok := refusal.As(err); ok {
		return r
	}
	var e *strictjson.Error
	switch {
	case errors.As(err, &e) && errors.Is(err, strictjson.ErrUnknownKey):
		return errArgs("unknown field " + strconv.Quote(safetext.Short(e.Key)) + "; the fields are query and count")
	case errors.As(err, &e) && errors.Is(err, strictjson.ErrDuplicateKey):
		return errArgs("field " + e.Key + " appears more than once")
	case errors.Is(err, strictjson.ErrInvalidUTF8):
		return errArgs("arguments are not valid UTF-8")
	}
	return errArgs("arguments are not valid JSON")
}
