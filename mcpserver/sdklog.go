package mcpserver

import (
	"context"
	"log/slog"

	"github.com/ocfetch/ocfetch/diag"
)

// sdkHandler demotes the SDK's own log records into ocfetch's verbosity
// levels: its Info and Debug chatter (sessions connecting, requests) is L3,
// its warnings and errors L2, so that the default level shows ocfetch's
// decisions and not the transport's bookkeeping.
type sdkHandler struct{ h slog.Handler }

func sdkLevel(l slog.Level) slog.Level {
	if l >= slog.LevelWarn {
		return diag.L2
	}
	return diag.L3
}

func (s sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return s.h.Enabled(ctx, sdkLevel(l))
}

func (s sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = sdkLevel(r.Level)
	return s.h.Handle(ctx, r)
}

func (s sdkHandler) WithAttrs(as []slog.Attr) slog.Handler { return sdkHandler{s.h.WithAttrs(as)} }
func (s sdkHandler) WithGroup(name string) slog.Handler    { return sdkHandler{s.h.WithGroup(name)} }

// sdkLogger is the logger handed to the SDK.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(sdkHandler{l.With("component", "mcp-sdk").Handler()})
}
