package audit

import (
	"context"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// Preflight proves, before a call sends any packet, that its audit line can
// be written: the log's directory exists (it is created as [Log.Append]
// would), and the log opens for append through the same checked open as
// Append — a regular file, not a symlink, not a directory, not a FIFO. The
// file is created if missing, so the line the call writes goes to the file
// checked here.
//
// It returns nil (a nil l records nothing and so needs nothing) or a
// *refusal.Error with code audit_unavailable naming the file, wrapping the
// cause. The broker and the proxy refuse the call on that error: a call
// that cannot be recorded does not go ahead unrecorded.
func (l *Log) Preflight() error { return l.preflight(nil) }

// PreflightContext is [Log.Preflight] within the call ctx carries
// ([securefile.WithCall]): the log's directory is the one checked once
// per call for the workspace's files, and the kept descriptor is checked
// against one fstatat of the log under it — or, where change notification
// covers the log's path and reports nothing on it, with no stat.
func (l *Log) PreflightContext(ctx context.Context) error {
	return l.preflight(securefile.CallFrom(ctx))
}

func (l *Log) preflight(call *securefile.Call) error {
	if l == nil {
		return nil
	}
	if securefile.KeptReadyIn(call, l.path) {
		return nil // the descriptor kept open still writes the file at l.path
	}
	if err := l.ws.EnsureDir(); err != nil {
		return unavailable(l.path, err)
	}
	f, err := workspace.OpenAppend(l.path, filePerm)
	if err != nil {
		return unavailable(l.path, err)
	}
	securefile.Keep(l.path, f)
	return nil
}

// Unavailable returns the audit_unavailable refusal for the log of l, for a
// line that failed after the call (err is the cause of [Log.Append]).
func (l *Log) Unavailable(err error) *refusal.Error {
	return refusal.Newf(refusal.AuditUnavailable, "the call ran, but its audit line could not be written to %s", l.path).
		WithHint("make " + l.path + " a regular file this user can append to; the line of this call is lost").
		Wrap(err)
}

func unavailable(path string, err error) *refusal.Error {
	return refusal.Newf(refusal.AuditUnavailable, "the audit log %s cannot be written, so nothing was sent", path).
		WithHint("make " + path + " a regular file this user can append to (not a directory or a symlink)").
		Wrap(err)
}
