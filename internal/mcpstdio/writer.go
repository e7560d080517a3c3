package mcpstdio

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

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
	// pending are the requests handed to the server and not yet being
	// answered: a request with one of their ids is a duplicate.
	pending map[jsonrpc.ID]struct{}
	// unwritten counts the requests handed to the server whose answers
	// are not yet written: the bound of [lineWriter.admit].
	unwritten int
}

// Why [lineWriter.admit] refuses requests.
type admitRefusal int

const (
	admitted admitRefusal = iota
	admitDuplicate
	admitBusy
)

// admit records the requests ids as handed to the server and unanswered.
// It refuses ids of which one repeats another or a request still
// unanswered (the server would answer it with no id), and ids that would
// make more than max requests' answers unwritten (max 0: no bound).
func (w *lineWriter) admit(ids []jsonrpc.ID, max int) admitRefusal {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	for i, id := range ids {
		if _, dup := w.pending[id]; dup {
			return admitDuplicate
		}
		for _, other := range ids[:i] {
			if other == id {
				return admitDuplicate
			}
		}
	}
	if max > 0 && w.unwritten+len(ids) > max {
		return admitBusy
	}
	if w.pending == nil {
		w.pending = map[jsonrpc.ID]struct{}{}
	}
	for _, id := range ids {
		w.pending[id] = struct{}{}
	}
	w.unwritten += len(ids)
	return admitted
}

// answering records that the answer to request id is about to be
// written, and reports whether id was a request admit counted. Its id is
// free again from here: once the answer's bytes are out, the client may
// send a new request with that id before the write returns (the SDK
// frees its own record of the id before it writes, for the same reason).
func (w *lineWriter) answering(id jsonrpc.ID) bool {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	_, ok := w.pending[id]
	delete(w.pending, id)
	return ok
}

// written records that n answers [lineWriter.answering] reported as
// counted have been written (or failed to be).
func (w *lineWriter) written(n int) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	w.unwritten -= n
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
