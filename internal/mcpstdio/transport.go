package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are the bounds of one [Transport] and the hook of its owner.
// The bounds have no default here: they are the server's contract
// (mcpserver's MaxLineBytes and MaxNesting), stated and kept there.
type Options struct {
	// MaxLine bounds one line (one JSON-RPC message without its newline);
	// a longer line gets invalid request (-32600). It must be positive:
	// with 0, every line is refused.
	MaxLine int
	// MaxNesting bounds how deeply the arrays and objects of one message
	// may nest; a deeper message gets invalid request before any decoder
	// recurses into it. It must be positive: with 0, every message is
	// refused.
	MaxNesting int
	// OnEnd, if set, is called once when the input ends (or fails), after
	// every line before the end was handed over: the server cancels the
	// calls in flight then.
	OnEnd func()
	// MaxPending bounds the requests handed to the server whose answers
	// are not yet written (the server runs each in a goroutine of its
	// own, holding its message). A request beyond it is answered here
	// with a server error (-32000), written before the next line is read:
	// a client that stops reading its output thus stops the reading of its
	// input too, rather than growing the server without bound. 0: no bound.
	MaxPending int
}

// Transport is the [mcp.Transport] of the stdio server: its messages
// come from the guard, which reads and decodes each line once, and go to
// the line writer.
type Transport struct {
	g *lineGuard
	w *lineWriter
}

// New returns the transport that reads the messages of in, a line each,
// and writes the server's to out, a line each. Closing the connection
// closes in (which is what ends a pending read); out is never closed:
// stdout outlives the session. The transport serves one connection.
func New(in io.ReadCloser, out io.Writer, opts Options) *Transport {
	w := &lineWriter{w: out}
	return &Transport{g: newLineGuard(in, w, opts), w: w}
}

// Connect starts the goroutine that reads the input, so that Read can
// return as soon as the connection is closed (a read of stdin may not be
// interruptible). It ends with the input or with Close.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
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

// stdioConn is the [mcp.Connection] of [Transport].
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
				return nil // written with the batch's last answer
			}
			counted := 0
			for _, r := range batch {
				if c.w.answering(r.ID) {
					counted++
				}
			}
			defer c.w.written(counted)
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
		if c.w.answering(resp.ID) {
			defer c.w.written(1)
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
