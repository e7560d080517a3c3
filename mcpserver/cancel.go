package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callContext returns the context of one tool call: ctx, also cancelled
// when the call's client has gone — its HTTP POST ended before the answer
// or its session was closed (DELETE), or stdin was closed on stdio — so the
// upstream fetch stops and the call is audited as cancelled. The SDK
// cancels ctx itself on notifications/cancelled.
func (s *server) callContext(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if ch := s.front.goneChan(req); ch != nil {
		go func() {
			select {
			case <-ch:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	if s.inputEnded == nil {
		return ctx, cancel
	}
	// Registered with the input's context, not watched by a goroutine of
	// its own: nothing to start and wake on every call.
	stop := context.AfterFunc(s.inputEnded, cancel)
	return ctx, func() { stop(); cancel() }
}
