package search

import (
	"bytes"
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
	// failed, if set, is the top-level array listing what the backend
	// could not ask (SearXNG's unresponsive_engines: its engines that
	// timed out, were rate-limited or met a CAPTCHA). Its entries are
	// counted ([scratch].failed), never read: an answer with few or no
	// results says the search may be incomplete. Anything but an array
	// there is ignored.
	failed string
}

// answerDoc bounds an answer's nesting (the documented answers nest 6
// deep) and checks the rest: valid UTF-8, one JSON value, no duplicate
// key. Keys are unrestricted: an answer has many members the tool does
// not read. The walk copies no text: parse notes where the texts it
// reads are, not the rest of the answer.
var answerDoc = strictjson.Walker{MaxDepth: 64}

// maxAnswerHits is how many of an answer's results are read: a call
// asks for MaxResults at most, and a backend's page holds a few dozen. The
// results after it are checked for the answer's shape, never kept: an
// answer of tiny results ({} or null, 3 bytes each) must not cost memory
// for each (a rawHit and a Hit, some 130 bytes, 40 times its bytes).
const maxAnswerHits = 256

// rawHit is one result as parse met it: where each read text is (empty
// for a member absent or null).
type rawHit struct{ title, url, snippet span }

// span is text[from:to] of the answer's body, or of its scratch's buffer
// if inBuf.
type span struct {
	from, to int
	inBuf    bool
}

// parse reads body in one strict pass ([strictjson.Walker.Walk]) into
// sc: its first maxAnswerHits results to sc.raw (later ones are checked,
// not kept), each text as a span of body if it is
// written without escapes and inBody, else decoded into sc.buf. body
// must be valid UTF-8 holding one JSON object without a duplicate key,
// nested at most 64 deep, with the results array where sh says, each
// result an object (or null, an empty hit the tool drops) whose read
// members are strings (or null, ""). Member names are compared
// byte-exactly ("URL" is not "url"). Anything else is an error wrapping
// [ErrMalformed] that names a member, never a value; sc is then to be
// ignored.
func (sh *answerShape) parse(body []byte, sc *scratch, inBody bool) error {
	hits, buf := sc.raw[:0], sc.buf[:0]
	defer func() { sc.raw, sc.buf = hits, buf }()
	var sawType, sawResults, failedList bool
	failed := 0
	defer func() { sc.failed = failed }()
	// skip: the result being read is past maxAnswerHits, checked only.
	var skip bool
	sawWithin := sh.within == ""
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
			if v.Kind != strictjson.String || !textIs(v, sh.typ) {
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
		case sh.failed != "" && p[0].Key == sh.failed && len(p) <= 2:
			if len(p) == 1 {
				failedList = v.Kind == strictjson.Array
			} else if failedList {
				failed++
			}
		case len(p) < at || !sh.inResults(p[:at]):
			// A member the tool does not read.
		case len(p) == at:
			if v.Kind != strictjson.Array {
				return sh.malformed(sh.list() + " is not an array")
			}
			sawResults = true
		case len(p) == at+1:
			if v.Kind != strictjson.Object && v.Kind != strictjson.Null {
				return sh.malformed("a result in " + sh.list() + " is not an object")
			}
			if skip = len(hits) == maxAnswerHits; !skip {
				hits = append(hits, rawHit{})
			}
		case len(p) == at+2:
			var field *span
			switch k := p[at+1].Key; {
			case k != sh.title && k != sh.url && k != sh.snippet:
				return nil
			case skip:
			case k == sh.title:
				field = &hits[len(hits)-1].title
			case k == sh.url:
				field = &hits[len(hits)-1].url
			default:
				field = &hits[len(hits)-1].snippet
			}
			switch v.Kind {
			case strictjson.String:
				if field == nil {
					break
				}
				if inBody && bytes.IndexByte(v.Raw, '\\') < 0 {
					*field = span{from: v.Offset + 1, to: v.Offset + len(v.Raw) - 1}
				} else {
					from := len(buf)
					buf = v.AppendText(buf)
					*field = span{from, len(buf), true}
				}
			case strictjson.Null:
			default:
				return sh.malformed("a result's " + p[at+1].Key + " is not a string")
			}
		}
		return nil
	})
	switch _, ours := err.(*parseError); { // the visitor's errors come back as they are
	case ours:
		return err
	case err != nil:
		return sh.malformed(walkProblem(err))
	case sh.typ != "" && !sawType:
		return sh.malformed(`no "type": "` + sh.typ + `"`)
	case !sawWithin:
		hits = hits[:0] // no results for this query
	case !sawResults && sh.within != "":
		return sh.malformed(sh.within + " has no " + sh.results + " array")
	case !sawResults:
		return sh.malformed("no " + sh.results + " array")
	}
	return nil
}

// hits is a backend's Parse: parse, then the texts copied out
// (one copy of the texts): the answer's first maxAnswerHits results. The
// hits are never returned with an error, and an answer without results is
// an empty, non-nil slice.
func (sh *answerShape) hits(body []byte) ([]Hit, error) {
	sc := getScratch()
	defer sc.release()
	if err := sh.parse(body, sc, false); err != nil {
		return nil, err
	}
	return sc.hits("", string(sc.buf)), nil
}

// textIs reports whether the String value v's text is want, without
// making a string of it.
func textIs(v strictjson.Value, want string) bool {
	var buf [32]byte
	return string(v.AppendText(buf[:0])) == want
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
