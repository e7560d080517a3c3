package mcpstdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// protocolNoBatches is the first protocol version without JSON-RPC batches.
const protocolNoBatches = "2025-06-18"

// lineGuard stands between the stdio input and the SDK, which ends the
// session on the first message it cannot decode. It hands the SDK only
// lines that decode as JSON-RPC messages, decoded once ([lineGuard.next]),
// and answers every other line itself with the error JSON-RPC 2.0
// prescribes: -32700 (parse error) for a line that is not JSON, -32600
// (invalid request) for JSON that is not a JSON-RPC message, nests deeper
// than [Options.MaxNesting] or is longer than the line bound
// ([Options.MaxLine]); the id is the
// message's own when it can be read, else null. Blank lines are skipped.
// The guard's answers and the SDK's messages share one writer, a line at a
// time, so a refused line never interleaves with a response already due.
type lineGuard struct {
	src        io.ReadCloser
	r          *bufio.Reader
	out        *lineWriter
	maxLine    int
	maxNesting int

	maxPending int

	line  []byte // reused line buffer
	err   error  // sticky read error
	onEnd func() // if set, called once when the input ends
}

func newLineGuard(src io.ReadCloser, out *lineWriter, opts Options) *lineGuard {
	return &lineGuard{
		src: src, r: bufio.NewReaderSize(src, 64<<10), out: out,
		maxLine: opts.MaxLine, maxNesting: opts.MaxNesting, maxPending: opts.MaxPending, onEnd: opts.OnEnd,
	}
}

// Close closes the underlying input: it is what unblocks a pending read
// when the session ends.
func (g *lineGuard) Close() error { return g.src.Close() }

// next returns the messages of the next line the SDK can take: one
// message, or the members of an admitted batch. Every other line is
// answered here and skipped. err is the end (or failure) of the input,
// returned once every line before it was handed over.
func (g *lineGuard) next() ([]jsonrpc.Message, error) {
	for {
		if g.err != nil {
			if g.onEnd != nil {
				g.onEnd()
				g.onEnd = nil
			}
			return nil, g.err
		}
		line, tooLong, err := g.readLine()
		if err != nil {
			// A last line without a newline is still a line.
			g.err = err
		}
		if tooLong {
			g.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: message longer than the line limit")
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msgs, code, msg, id := g.check(line)
		if code != 0 {
			g.reject(id, code, msg)
			continue
		}
		return msgs, nil
	}
}

// readLine returns the next line without its newline. A line longer than
// maxLine is consumed up to its newline and reported as tooLong, without
// being kept.
func (g *lineGuard) readLine() (line []byte, tooLong bool, err error) {
	g.line = g.line[:0]
	for {
		chunk, err := g.r.ReadSlice('\n')
		if !tooLong {
			if len(g.line)+len(chunk) > g.maxLine+2 { // +2: room for "\r\n", checked below
				tooLong = true
				g.line = g.line[:0]
			} else {
				g.line = append(g.line, chunk...)
			}
		}
		switch {
		case err == nil:
			line := bytes.TrimRight(g.line, "\r\n")
			if len(line) > g.maxLine {
				return nil, true, nil
			}
			return line, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if len(g.line) > g.maxLine {
				return nil, true, err
			}
			return g.line, tooLong, err
		}
	}
}

// check decodes a line the SDK can take into its messages (code 0); for
// any other line it returns the JSON-RPC error code and message for it and
// the id to answer with (nil: null).
func (g *lineGuard) check(line []byte) (msgs []jsonrpc.Message, code int64, msg string, id json.RawMessage) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "parse error: the line is not one JSON value", nil
	}
	if strictjson.Depth(line) > g.maxNesting {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: nested deeper than the limit", topLevelID(line)
	}
	if line[0] != '[' {
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message", topLevelID(line)
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			if code, msg := g.admit([]jsonrpc.ID{req.ID}); code != 0 {
				return nil, code, msg, topLevelID(line)
			}
		}
		return []jsonrpc.Message{m}, 0, "", nil
	}
	msgs, code, msg = g.checkBatch(line)
	return msgs, code, msg, nil
}

// checkBatch admits a batch (protocol versions before 2025-06-18 only) when
// every member is a JSON-RPC message and no request id repeats one that is
// still outstanding: the SDK ends the session otherwise.
func (g *lineGuard) checkBatch(line []byte) ([]jsonrpc.Message, int64, string) {
	if v := g.out.protocol(); v == "" || v >= protocolNoBatches {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported on this protocol version"
	}
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || len(members) == 0 {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: empty batch"
	}
	var ids []jsonrpc.ID
	msgs := make([]jsonrpc.Message, 0, len(members))
	for _, m := range members {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch member is not a JSON-RPC 2.0 message"
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			ids = append(ids, req.ID)
		}
		msgs = append(msgs, msg)
	}
	if code, msg := g.admit(ids); code != 0 {
		return nil, code, msg
	}
	if !g.out.addBatch(ids) {
		for _, id := range ids { // not handed over after all
			if g.out.answering(id) {
				g.out.written(1)
			}
		}
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch repeats a request id"
	}
	return msgs, 0, ""
}

// codeServerBusy is the JSON-RPC error of a request refused because too
// many are unanswered (the implementation-defined server error range).
const codeServerBusy = -32000

// admit records requests ids as handed to the server; a refusal is the
// JSON-RPC error to answer with.
func (g *lineGuard) admit(ids []jsonrpc.ID) (int64, string) {
	switch g.out.admit(ids, g.maxPending) {
	case admitDuplicate:
		return jsonrpc.CodeInvalidRequest, "invalid request: the request id is that of a request still unanswered"
	case admitBusy:
		return codeServerBusy, fmt.Sprintf("server busy: %d requests are unanswered or their answers unread; send it again once some are read", g.maxPending)
	}
	return 0, ""
}

// reject writes the error response for a refused line.
func (g *lineGuard) reject(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	g.out.Write(append(data, '\n')) // a failed write ends the session through the SDK's next write
}

// topLevelID returns the "id" member of the JSON object data when it is a
// valid JSON-RPC id (string or number), else nil. It streams tokens, so it
// does not recurse however deep the other members nest.
func topLevelID(data []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	depth := 1
	expectKey := true
	for {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		switch v := t.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
				if depth == 0 {
					return nil
				}
			}
			if depth == 1 {
				expectKey = true
			}
			continue
		}
		if depth != 1 {
			continue
		}
		if !expectKey {
			expectKey = true
			continue
		}
		expectKey = false
		if t != "id" {
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return nil
		}
		switch v := v.(type) {
		case string:
			b, _ := json.Marshal(v)
			return b
		case json.Number:
			return json.RawMessage(v.String())
		}
		return nil
	}
}
