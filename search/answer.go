package search

import (
	"errors"

	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// answerShape is where a backend's JSON answer holds its results and what
// each result's members are called: the one description of an answer
// that [answerShape.parse] reads, the same way for every backend.
type answerShape struct {
	backend string // the backend's name, for messages
	api     string // what the answer is, for messages: "search API"
	// typ, if set, is the string the top-level member "type" must hold.
	typ string
	// within, if set, is the top-level member (an object) that holds the
	// results array; an answer without it, or with it null, has no
	// results.
	within string
	// results is the member holding the results array: in within, or at
	// the top level.
	results string
	// The members of one result read into a Hit; any other is ignored.
	title, url, snippet string
}

// answerDoc bounds an answer's nesting (the documented answers nest 6
// deep) and checks the rest: valid UTF-8, one JSON value, no duplicate
// key. Keys are unrestricted: an answer has many members the tool does
// not read. The hits' texts share one copy of the answer (Substrings),
// which lives as long as the call's result, not longer.
var answerDoc = strictjson.Walker{MaxDepth: 64, Substrings: true}

// parse reads body in one strict pass ([strictjson.Walker.Walk]): it must
// be valid UTF-8 holding one JSON object without a duplicate key, nested
// at most 64 deep, with the results array where sh says, each result an
// object (or null, an empty hit the tool drops) whose read members are
// strings (or null, ""). Member names are compared byte-exactly ("URL" is
// not "url"). Anything else is an error wrapping [ErrMalformed] that
// names a member, never a value; hits are never returned with an error.
func (sh *answerShape) parse(body []byte) ([]Hit, error) {
	var (
		hits                []Hit
		sawType, sawResults bool
		sawWithin           = sh.within == ""
	)
	// at is the depth of the results array: 1, or 2 inside within.
	at := 1
	if sh.within != "" {
		at = 2
	}
	err := answerDoc.Walk(body, func(p strictjson.Path, v strictjson.Value) error {
		switch {
		case len(p) == 0:
			if v.Kind != strictjson.Object {
				return sh.malformed("not a JSON object of the " + sh.api)
			}
		case len(p) == 1 && sh.typ != "" && p[0].Key == "type":
			if v.Kind != strictjson.String || v.Text() != sh.typ {
				return sh.malformed(`no "type": "` + sh.typ + `"`)
			}
			sawType = true
		case len(p) == 1 && sh.within != "" && p[0].Key == sh.within:
			switch v.Kind {
			case strictjson.Null: // no results
			case strictjson.Object:
				sawWithin = true
			default:
				return sh.malformed(sh.within + " is not an object")
			}
		case len(p) < at || !sh.inResults(p[:at]):
			// A member the tool does not read.
		case len(p) == at:
			if v.Kind != strictjson.Array {
				return sh.malformed(sh.list() + " is not an array")
			}
			sawResults, hits = true, make([]Hit, 0, 16)
		case len(p) == at+1:
			if v.Kind != strictjson.Object && v.Kind != strictjson.Null {
				return sh.malformed("a result in " + sh.list() + " is not an object")
			}
			hits = append(hits, Hit{})
		case len(p) == at+2:
			var field *string
			switch p[at+1].Key {
			case sh.title:
				field = &hits[len(hits)-1].Title
			case sh.url:
				field = &hits[len(hits)-1].URL
			case sh.snippet:
				field = &hits[len(hits)-1].Snippet
			default:
				return nil
			}
			switch v.Kind {
			case strictjson.String:
				*field = v.Text()
			case strictjson.Null:
			default:
				return sh.malformed("a result's " + p[at+1].Key + " is not a string")
			}
		}
		return nil
	})
	var pe *parseError
	switch {
	case errors.As(err, &pe):
		return nil, err
	case err != nil:
		return nil, sh.malformed(walkProblem(err))
	case sh.typ != "" && !sawType:
		return nil, sh.malformed(`no "type": "` + sh.typ + `"`)
	case !sawWithin:
		return []Hit{}, nil // no results for this query
	case !sawResults && sh.within != "":
		return nil, sh.malformed(sh.within + " has no " + sh.results + " array")
	case !sawResults:
		return nil, sh.malformed("no " + sh.results + " array")
	}
	return hits, nil
}

// inResults reports whether p, a path of the results array's depth, is
// the results array's.
func (sh *answerShape) inResults(p strictjson.Path) bool {
	if sh.within != "" {
		return p[0].Key == sh.within && p[1].Key == sh.results
	}
	return p[0].Key == sh.results
}

// list names the results array for a message: "results", "web.results".
func (sh *answerShape) list() string {
	if sh.within != "" {
		return sh.within + "." + sh.results
	}
	return sh.results
}

func (sh *answerShape) malformed(what string) error { return malformed(sh.backend, what) }

// walkProblem names what strictjson refused, without the offset or the
// key it quotes: the answer may echo the query.
func walkProblem(err error) string {
	switch {
	case errors.Is(err, strictjson.ErrInvalidUTF8):
		return "not valid UTF-8"
	case errors.Is(err, strictjson.ErrDuplicateKey):
		return "an object has a duplicate key"
	case errors.Is(err, strictjson.ErrTooDeep):
		return "nested too deeply"
	}
	return "not valid JSON"
}
