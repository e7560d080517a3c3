package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/internal/strictjson"
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

// lineGuard stands between the stdio input and the SDK, which ends the
// session on the first message it cannot decode. It hands the SDK only
// lines that decode as JSON-RPC messages, decoded once ([lineGuard.next]),
// and answers every other line itself with the error JSON-RPC 2.0
// prescribes: -32700 (parse error) for a line that is not JSON, -32600
// (invalid request) for JSON that is not a JSON-RPC message, nests deeper
// than [MaxNesting] or is longer than the line bound; the id is the
// message's own when it can be read, else null. Blank lines are skipped.
// The guard's answers and the SDK's messages share one writer, a line at a
// time, so a refused line never interleaves with a response already due.
type lineGuard struct {
	src     io.ReadCloser
	r       *bufio.Reader
	out     *lineWriter
	maxLine int

	line  []byte // reused line buffer
	err   error  // sticky read error
	onEnd func() // if set, called once when the input ends
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
	if strictjson.Depth(line) > MaxNesting {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: nested deeper than the limit", topLevelID(line)
	}
	if line[0] != '[' {
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message", topLevelID(line)
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
	if !g.out.addBatch(ids) {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch repeats a request id"
	}
	return msgs, 0, ""
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

// lineWriter serializes whole lines onto the stdio output: every message
// is written in one Write, the guard's answers too. It also keeps what the
// guard must know: the negotiated protocol version (from the initialize
// result) and the requests of admitted batches still unanswered.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer

	stateMu  sync.Mutex
	proto    string
	sawProto bool
	batches  map[jsonrpc.ID]*msgBatch // request id → the batch it came in
}

// msgBatch collects the responses to the requests of one incoming batch,
// answered as one array once all are in (JSON-RPC 2.0, "Batch").
type msgBatch struct {
	index     map[jsonrpc.ID]int // unanswered request → its place in responses
	responses []*jsonrpc.Response
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

// addBatch records the request ids of an admitted batch; false if one
// repeats another of the batch or one still outstanding from an earlier
// batch.
func (w *lineWriter) addBatch(ids []jsonrpc.ID) bool {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	b := &msgBatch{index: make(map[jsonrpc.ID]int, len(ids)), responses: make([]*jsonrpc.Response, len(ids))}
	for i, id := range ids {
		if _, dup := b.index[id]; dup {
			return false
		}
		if _, dup := w.batches[id]; dup {
			return false
		}
		b.index[id] = i
	}
	if len(ids) == 0 {
		return true
	}
	if w.batches == nil {
		w.batches = map[jsonrpc.ID]*msgBatch{}
	}
	for _, id := range ids {
		w.batches[id] = b
	}
	return true
}

// answerBatch records resp when it answers a request of a batch: inBatch
// reports that it does, and complete is the batch's responses, in the
// order of its requests, once resp was the last one missing.
func (w *lineWriter) answerBatch(resp *jsonrpc.Response) (complete []*jsonrpc.Response, inBatch bool) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	b, ok := w.batches[resp.ID]
	if !ok {
		return nil, false
	}
	b.responses[b.index[resp.ID]] = resp
	delete(b.index, resp.ID)
	delete(w.batches, resp.ID)
	if len(b.index) > 0 {
		return nil, true
	}
	return b.responses, true
}

// observe reads the negotiated protocol version from the initialize result.
func (w *lineWriter) observe(p []byte) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
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

// stdioTransport is the [mcp.Transport] of the stdio server: its messages
// come from the guard, which reads and decodes each line once, and go to
// the line writer.
type stdioTransport struct {
	g *lineGuard
	w *lineWriter
}

// Connect starts the goroutine that reads the input, so that Read can
// return as soon as the connection is closed (a read of stdin may not be
// interruptible). It ends with the input or with Close.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{g: t.g, w: t.w, incoming: make(chan stdioRead), closed: make(chan struct{})}
	go func() {
		for {
			msgs, err := c.g.next()
			select {
			case c.incoming <- stdioRead{msgs, err}:
			case <-c.closed:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

type stdioRead struct {
	msgs []jsonrpc.Message
	err  error
}

// stdioConn is the [mcp.Connection] of [stdioTransport].
type stdioConn struct {
	g        *lineGuard
	w        *lineWriter
	incoming chan stdioRead
	queue    []jsonrpc.Message // the rest of the last batch; reads are serialized

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message of the input: the next line's, or the
// next member of the last batch.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		if r.err != nil {
			return nil, r.err
		}
		c.queue = r.msgs[1:]
		return r.msgs[0], nil
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line; a response to a request of a batch waits
// for the batch's other responses, and the batch is answered as one array.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if batch, inBatch := c.w.answerBatch(resp); inBatch {
			if batch == nil {
				return nil
			}
			data := []byte{'['}
			for i, r := range batch {
				if i > 0 {
					data = append(data, ',')
				}
				var err error
				if data, err = appendMessage(data, r); err != nil {
					return err
				}
			}
			_, err := c.w.Write(append(data, ']', '\n'))
			return err
		}
	}
	data, err := appendMessage(make([]byte, 0, messageSize(msg)), msg)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// Close closes the input, which ends the reading goroutine; the output
// stays open (stdout outlives the session).
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.g.Close()
		close(c.closed)
	})
	return c.closeErr
}

// messageSize is room enough for msg's encoding in the common case, so
// that appending a large result does not grow the buffer.
func messageSize(msg jsonrpc.Message) int {
	if r, ok := msg.(*jsonrpc.Response); ok {
		return len(r.Result) + 64
	}
	return 512
}

// appendMessage appends the JSON-RPC encoding of msg to dst. A response
// that carries a result is written around the result as the SDK encoded
// it (by encoding/json, so valid and compact): jsonrpc.EncodeMessage
// would scan and copy the whole result once more, which for a page of
// content costs as much as the rest of the response. Everything else is
// jsonrpc.EncodeMessage's.
func appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 {
		var id []byte
		switch v := r.ID.Raw().(type) {
		case int64:
			id = strconv.AppendInt(nil, v, 10)
		case string:
			id, _ = json.Marshal(v) // a string always encodes
		}
		if id != nil {
			dst = append(dst, `{"jsonrpc":"2.0","id":`...)
			dst = append(dst, id...)
			dst = append(dst, `,"result":`...)
			dst = append(dst, r.Result...)
			return append(dst, '}'), nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return dst, fmt.Errorf("mcpserver: encoding a message: %w", err)
	}
	return append(dst, data...), nil
}
