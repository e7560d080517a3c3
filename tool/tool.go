// Package tool is the contract every tool of the ocfetch runtime implements.
//
// A tool call runs in two steps so that approval sits between them:
//
//  1. [Tool.PrepareCall] decodes and validates the raw arguments ONCE and
//     returns the [Request] (what the call needs: capability requirements and
//     a filesystem grant pair) and an opaque [PreparedArtifact] holding the
//     normalised call. A refusal here is a *refusal.Error.
//
//  2. After the runtime has approved the Request, it binds the artifact to a
//     context with [WithArtifact] and calls [Tool.InvokableRun], which runs
//     the artifact bound to that context, never the raw arguments again, and
//     fails closed without it.
//
//     req, art, err := t.PrepareCall(ctx, id, args)
//     // ... decide on req.Requirements ...
//     res, _ := t.InvokableRun(tool.WithArtifact(ctx, id, art), args)
//
// [Tool.AuditSummary] says what a call does in "<METHOD> <host>" form: safe
// to log and to show in an approval prompt.
package tool

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
)

// Info describes a tool to a model.
type Info struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the arguments object.
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tool is implemented by every tool of the runtime.
type Tool interface {
	Info(ctx context.Context) (*Info, error)
	PrepareCall(ctx context.Context, executionID uuid.UUID, argsJSON string) (Request, PreparedArtifact, error)
	InvokableRun(ctx context.Context, argsJSON string) (*Result, error)
	AuditSummary(argsJSON string) string
}

// Named is implemented by a tool that tells its name without building its
// [Info] (whose input schema is a document): the runtime names the tool of
// every call's audit line, and [NameOf] asks it first. Name must equal
// Info's Name.
type Named interface {
	Name() string
}

// NameOf returns t's name: [Named]'s when t implements it, else its
// Info's, else "tool" (no Info, or an empty name).
func NameOf(ctx context.Context, t Tool) string {
	if n, ok := t.(Named); ok {
		if name := n.Name(); name != "" {
			return name
		}
		return "tool"
	}
	info, err := t.Info(ctx)
	if err != nil || info == nil || info.Name == "" {
		return "tool"
	}
	return info.Name
}

// GrantPair is the filesystem access a call asks for: paths to read and
// paths to write. Nil slices mean none; a network tool's pair is empty.
type GrantPair struct {
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
}

// Empty reports whether the pair grants nothing.
func (g GrantPair) Empty() bool { return len(g.Read) == 0 && len(g.Write) == 0 }

// Request is what a prepared call needs before it may run.
type Request struct {
	ExecutionID  uuid.UUID                `json:"execution_id"`
	Tool         string                   `json:"tool"`
	Requirements []capability.Requirement `json:"requirements"`
	Grants       GrantPair                `json:"grants"`
	// Summary is the call's audit summary from the prepared call, what
	// AuditSummary would say of it ("<METHOD> <host>"), so that the
	// runtime need not parse the arguments again; "" means ask
	// AuditSummary.
	Summary string `json:"-"`
}

// PreparedArtifact is a tool's normalised call. Only the tool that made it
// knows its concrete type.
type PreparedArtifact any

// Result is what a call hands back: safe to show a model and, apart from
// Content, safe to log.
type Result struct {
	// Content is the text shown to the model.
	Content string `json:"content"`
	// Structured holds machine-readable fields of a successful result
	// (for Fetch: status, url, headers, format, truncated, ...).
	Structured any `json:"structured,omitempty"`
	// Status and Bytes feed the audit line of a call that reached a server:
	// the HTTP status delivered and the body bytes read (0 when none).
	Status int   `json:"status,omitempty"`
	Bytes  int64 `json:"bytes,omitempty"`
	// IsError marks a refusal or failure; Reason, Message and Hint say which.
	IsError bool         `json:"is_error,omitempty"`
	Reason  refusal.Code `json:"reason,omitempty"`
	Message string       `json:"message,omitempty"`
	Hint    string       `json:"hint,omitempty"`
	// ModelHint is the refusal's hint worded for a model
	// (refusal.Error.ModelHint), empty when Hint serves both; a front end
	// that speaks to a model (the MCP server) shows it instead of Hint.
	ModelHint string `json:"-"`
	// RedirectTo is the full Location of a refused off-target redirect,
	// resolved against the request URL (reason redirect_off_target), so the
	// caller can make a new call for it that is decided on its own. It is
	// for the caller only: it may carry the path, query or a token, so it
	// is never written to an audit line, a log or a diagnostic.
	RedirectTo string `json:"redirect_to,omitempty"`
	// AuditFailure is set when the call's audit line could not be written
	// after the call (audit_unavailable): the front end reports it to the
	// caller (the CLI on stderr and in its exit status, the MCP server in
	// the result), never only in diagnostics.
	AuditFailure *refusal.Error `json:"-"`
	// RuleNotSaved is set when the user answered "always" and the call
	// went ahead, but the rule was not saved (or was saved in a workspace
	// that is not trusted, where it counts for nothing yet): the front end
	// tells the user (the CLI on stderr, the MCP server in the result),
	// never only in diagnostics.
	RuleNotSaved *refusal.Error `json:"-"`
}

// ErrorResult turns a refusal into an error result. An error that is not a
// *refusal.Error becomes internal_error without its text, which might carry
// a URL.
func ErrorResult(err error) *Result {
	r, ok := refusal.As(err)
	if !ok {
		r = refusal.New(refusal.InternalError, "internal error")
	}
	content := string(r.Code) + ": " + r.Message
	if r.Hint != "" {
		content += "\nhint: " + r.Hint
	}
	return &Result{Content: content, IsError: true, Reason: r.Code, Message: r.Message, Hint: r.Hint, ModelHint: r.ModelHint}
}

type artifactKey struct{}

type boundArtifact struct {
	id       uuid.UUID
	artifact PreparedArtifact
}

// WithArtifact binds artifact to ctx for the one execution id.
func WithArtifact(ctx context.Context, executionID uuid.UUID, artifact PreparedArtifact) context.Context {
	return bind[artifactKey](ctx, boundArtifact{id: executionID, artifact: artifact})
}

// ArtifactFrom returns the artifact bound to ctx and its execution id.
func ArtifactFrom(ctx context.Context) (PreparedArtifact, uuid.UUID, bool) {
	b, ok := ctx.Value(artifactKey{}).(*boundArtifact)
	if !ok || b == nil || b.artifact == nil {
		return nil, uuid.Nil, false
	}
	return b.artifact, b.id, true
}
