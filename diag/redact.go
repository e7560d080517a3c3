package diag

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
)

// sensitive are the keys (compared case-insensitively, also as a "_key"
// suffix) whose attributes and groups are dropped.
var sensitive = []string{"url", "uri", "path", "query", "header", "headers", "body", "cookie", "authorization"}

func isSensitive(key string) bool {
	k := strings.ToLower(key)
	for _, s := range sensitive {
		if k == s || strings.HasSuffix(k, "_"+s) {
			return true
		}
	}
	return false
}

// Redacting wraps h as defence in depth for the rule that diagnostics never
// carry the path, query, headers or body of a request:
//
//   - an attribute or group whose key is url, uri, path, query, header,
//     headers, body, cookie or authorization (any case, or ending in
//     "_url", "_path", …) is dropped, at any depth, whether logged with the
//     record or added by With;
//   - everything logged under such a WithGroup name is dropped;
//   - an error value wrapping a *url.Error is replaced by its operation and
//     cause, without the URL.
//
// It is not a licence to log such data: callers keep secrets out of
// messages, which it cannot see. (It is a handler, not a ReplaceAttr,
// because slog's built-in handlers mis-nest the attributes that follow an
// inline group whose every member a ReplaceAttr dropped.)
func Redacting(h slog.Handler) slog.Handler {
	if r, ok := h.(*redactHandler); ok {
		return r
	}
	return &redactHandler{inner: h}
}

type redactHandler struct {
	inner slog.Handler
	// muted: a WithGroup with a sensitive name is open; every attribute
	// from here on would sit inside it.
	muted bool
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	if !h.muted {
		r.Attrs(func(a slog.Attr) bool {
			if a, ok := redactAttr(a); ok {
				out.AddAttrs(a)
			}
			return true
		})
	}
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if h.muted {
		return h
	}
	kept := make([]slog.Attr, 0, len(attrs))
	for _, a := range attrs {
		if a, ok := redactAttr(a); ok {
			kept = append(kept, a)
		}
	}
	return &redactHandler{inner: h.inner.WithAttrs(kept)}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), muted: h.muted || isSensitive(name)}
}

// redactAttr returns a without sensitive content, and false when nothing
// of it is left to log.
func redactAttr(a slog.Attr) (slog.Attr, bool) {
	if isSensitive(a.Key) {
		return slog.Attr{}, false
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		members := v.Group()
		kept := make([]slog.Attr, 0, len(members))
		for _, m := range members {
			if m, ok := redactAttr(m); ok {
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			return slog.Attr{}, false
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(kept...)}, true
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			var ue *url.Error
			if errors.As(err, &ue) {
				v = slog.StringValue(ue.Op + " [url redacted]: " + causeText(ue.Err))
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}, true
}

// causeText is the text of a *url.Error's cause, itself redacted if it
// nests another *url.Error.
func causeText(err error) string {
	if err == nil {
		return "<nil>"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " [url redacted]"
	}
	return err.Error()
}
