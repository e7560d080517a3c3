package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxLineBytes bounds one line of the stdio transport (one JSON-RPC message
// without its newline), as [MaxHTTPRequestBytes] bounds an HTTP body.
const MaxLineBytes = MaxHTTPRequestBytes

// MaxNesting bounds how deeply the arrays and objects of one message may
// nest. Tool arguments are a flat object with one map (headers); the
// envelope adds three levels. Anything deeper is refused before any
// decoder recurses into it.
const MaxNesting = 64

// protocolNoBatches is the first protocol version without JSON-RPC batches.
const protocolNoBatches = "2025-06-18"

// lineGuard stands between the stdio input and the SDK's transport, which
// ends the session on the first line it cannot decode. It hands the SDK only
// lines that decode as JSON-RPC messages, one whole line per message, and
// answers every other line itself with the error JSON-RPC 2.0 prescribes:
// -32700 (parse error) for a line that is not JSON, -32600 (invalid request)
// for JSON that is not a JSON-RPC message, nests deeper than [MaxNesting] or
// is longer than the line bound; the id is the message's own when it can be
// read, else null. Blank lines are skipped. The guard's answers and the
// SDK's messages share one writer, a line at a time, so a refused line never
// interleaves with a response already due.
type lineGuard struct {
	src     io.ReadCloser
	r       *bufio.Reader
	out     *lineWriter
	maxLine int

	pending []byte // the rest of the current valid line for the SDK
	line    []byte // reused line buffer
	err     error  // sticky read error
	onEnd   func() // if set, called once when the input ends
}

func newLineGuard(src io.ReadCloser, out *lineWriter, maxLine int) *lineGuard {
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	return &lineGuard{src: src, r: bufio.NewReaderSize(src, 64<<10), out: out, maxLine: maxLine}
}

// Close closes the underlying input: it is what unblocks a pending read
// when the session ends.
func (g *lineGuard) Close() error { return g.src.Close() }

// Read implements io.Reader for the SDK's decoder: it returns bytes of valid
// lines only, each ending in a newline.
func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			if g.onEnd != nil {
				g.onEnd()
				g.onEnd = nil
			}
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line and either queues it for the SDK or answers it.
func (g *lineGuard) next() {
	line, tooLong, err := g.readLine()
	if err != nil && len(line) == 0 && !tooLong {
		g.err = err
		return
	}
	if err != nil {
		// A last line without a newline is still a line.
		g.err = err
	}
	if tooLong {
		g.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: message longer than the line limit")
		return
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if code, msg, id := g.check(line); code != 0 {
		g.reject(id, code, msg)
		return
	}
	g.pending = append(line, '\n')
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

// check returns 0 for a line the SDK can take, else the JSON-RPC error code
// and message for it and the id to answer with (nil: null).
func (g *lineGuard) check(line []byte) (code int64, msg string, id json.RawMessage) {
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "parse error: the line is not one JSON value", nil
	}
	if strictjson.Depth(line) > MaxNesting {
		return jsonrpc.CodeInvalidRequest, "invalid request: nested deeper than the limit", topLevelID(line)
	}
	if line[0] != '[' {
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			return jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message", topLevelID(line)
		}
		return 0, "", nil
	}
	return g.checkBatch(line)
}

// checkBatch admits a batch (protocol versions before 2025-06-18 only) when
// every member is a JSON-RPC message and no request id repeats one that is
// still outstanding: the SDK ends the session otherwise.
func (g *lineGuard) checkBatch(line []byte) (int64, string, json.RawMessage) {
	if v := g.out.protocol(); v == "" || v >= protocolNoBatches {
		return jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported on this protocol version", nil
	}
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || len(members) == 0 {
		return jsonrpc.CodeInvalidRequest, "invalid request: empty batch", nil
	}
	var ids []string
	for _, m := range members {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			return jsonrpc.CodeInvalidRequest, "invalid request: a batch member is not a JSON-RPC 2.0 message", nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			ids = append(ids, idKey(req.ID.Raw()))
		}
	}
	if !g.out.addBatch(ids) {
		return jsonrpc.CodeInvalidRequest, "invalid request: a batch repeats a request id", nil
	}
	return 0, "", nil
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

func idKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// lineWriter serializes whole lines onto the stdio output: the SDK writes a
// message in one Write, and so does the guard. It also watches the server's
// messages for what the guard must know: the negotiated protocol version
// (from the initialize result) and the ids of answered batches.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer

	stateMu  sync.Mutex
	proto    string
	inBatch  map[string]bool
	sawProto bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.observe(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Close does not close the output: stdout outlives the session.
func (w *lineWriter) Close() error { return nil }

func (w *lineWriter) protocol() string {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	return w.proto
}

// addBatch records the request ids of an admitted batch; false if one is
// still outstanding from an earlier batch.
func (w *lineWriter) addBatch(ids []string) bool {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	seen := map[string]bool{}
	for _, id := range ids {
		if w.inBatch[id] || seen[id] {
			return false
		}
		seen[id] = true
	}
	if w.inBatch == nil {
		w.inBatch = map[string]bool{}
	}
	for id := range seen {
		w.inBatch[id] = true
	}
	return true
}

func (w *lineWriter) observe(p []byte) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	if len(p) > 0 && p[0] == '[' && len(w.inBatch) > 0 {
		var resps []struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(p, &resps) == nil {
			for _, r := range resps {
				delete(w.inBatch, idKey(r.ID))
			}
		}
		return
	}
	if w.sawProto || !bytes.Contains(p, []byte(`"protocolVersion"`)) {
		return
	}
	var m struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(p, &m) == nil && m.Result != nil && m.Result.ProtocolVersion != "" {
		w.proto = m.Result.ProtocolVersion
		w.sawProto = true
	}
}
