// Package refusal names why ocfetch refused or failed a request.
//
// Every refusal in ocfetch is an [*Error]: a stable [Code] that scripts and
// models branch on, a message that names the profile, port, file, scheme or
// host involved, and a hint that says what to change. By contract a message
// and a hint never contain the path, query, headers or body of a request:
// they are safe to show a model, print, and write to the audit log.
//
//	err := refusal.New(refusal.HTTPSRequired, "scheme http is not allowed for example.com").
//		WithHint("use https://")
//	var r *refusal.Error
//	if errors.As(err, &r) { fmt.Println(r.Code) } // https_required
package refusal

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable reason. Codes are extended, never
// renamed: scripts and audit logs depend on them.
type Code string

// The reason codes of DESIGN.md, in policy order.
const (
	InvalidArguments          Code = "invalid_arguments"
	SchemeNotAllowed          Code = "scheme_not_allowed"
	HTTPSRequired             Code = "https_required"
	CredentialsInURL          Code = "credentials_in_url"
	InvalidHost               Code = "invalid_host"
	AddressNotPublic          Code = "address_not_public"
	LocalProfileNotPermissive Code = "local_profile_not_permissive"
	LocalPortMissing          Code = "local_port_missing"
	LocalPortNotAllowed       Code = "local_port_not_allowed"
	LocalAllowlistMissing     Code = "local_allowlist_missing"
	LocalAllowlistInvalid     Code = "local_allowlist_invalid"
	SettingsInvalid           Code = "settings_invalid"
	RulesInvalid              Code = "rules_invalid"
	NotApproved               Code = "not_approved"
	DeniedByRule              Code = "denied_by_rule"
	RedirectOffTarget         Code = "redirect_off_target"
	TooManyRedirects          Code = "too_many_redirects"
	Timeout                   Code = "timeout"
	TLSError                  Code = "tls_error"
	ConnectionFailed          Code = "connection_failed"
	ResponseTooLarge          Code = "response_too_large"
	ResponseHeadersTooLarge   Code = "response_headers_too_large"
	RequestHeadersTooLarge    Code = "request_headers_too_large"
	TooManyConnections        Code = "too_many_connections"
	WorkspaceInvalid          Code = "workspace_invalid"
	InternalError             Code = "internal_error"

	// Added since the first release (DESIGN.md).

	// AuditUnavailable: the audit line could not be written (the log is not
	// a regular file, is a symlink, or cannot be opened for append), so
	// nothing was sent.
	AuditUnavailable Code = "audit_unavailable"
	// WorkspaceUntrusted: a grant in a workspace the user has not trusted
	// was ignored, and the call needed it.
	WorkspaceUntrusted Code = "workspace_untrusted"
	// ManagedPolicyInvalid: the administrator's policy file exists but
	// cannot be read, is malformed, or is writable by non-administrators;
	// every call is refused until it is fixed.
	ManagedPolicyInvalid Code = "managed_policy_invalid"
	// ManagedPolicyForbids: the managed policy forbids what was asked (a
	// one-off approval, a profile above its cap, --no-sandbox).
	ManagedPolicyForbids Code = "managed_policy_forbids"
	// SandboxUnavailable: ocfetch run cannot confine the command's network
	// on this system.
	SandboxUnavailable Code = "sandbox_unavailable"
	// ContentTooComplex: converting the body would exceed the work budget
	// (an HTML or PDF bomb); the raw body is still available.
	ContentTooComplex Code = "content_too_complex"
	// Cancelled: the caller went away (client reset, transport closed,
	// Ctrl-C) before the call finished.
	Cancelled Code = "cancelled"
	// ProxyAuthRequired: a loopback listener of ocfetch was reached without
	// its credentials.
	ProxyAuthRequired Code = "proxy_auth_required"
	// SearchNotConfigured: the search tool has no backend (no search.json
	// in the user's configuration directory, no --backend flag), or its
	// configuration or key file cannot be read.
	SearchNotConfigured Code = "search_not_configured"
	// SearchBackendFailed: the search backend answered with an HTTP error
	// status (named in the message) or with a body that is not a valid
	// answer of its API.
	SearchBackendFailed Code = "search_backend_failed"
	// SearchRateLimited: the search backend answered 429 Too Many
	// Requests; the message gives its Retry-After when it sent one.
	SearchRateLimited Code = "search_rate_limited"
	// PolicyReadOnly: ocfetch was asked to change a file that decides or
	// records the network (rules, allowlist, settings, trust store) from
	// inside `ocfetch run`, where those files are read-only.
	PolicyReadOnly Code = "policy_read_only"
	// RobotsDisallowed: with --respect-robots (fetch.Options.Robots), the
	// site's robots.txt disallows the page for ocfetch's user agent, or
	// answered 401, 403 or a server error, which is taken as disallowing
	// every page; nothing else was sent.
	RobotsDisallowed Code = "robots_disallowed"
)

// Policy reports whether c is a refusal by policy (exit code 3) rather than a
// failure of the request itself (network, TLS, timeout, size, a proxy at its
// connection limit: exit code 4, docs/DESIGN.md). README's reason table
// states the same, and a test of cmd/ocfetch holds the two together.
func (c Code) Policy() bool {
	switch c {
	case Timeout, TLSError, ConnectionFailed, ResponseTooLarge, ResponseHeadersTooLarge, InternalError,
		ContentTooComplex, Cancelled, SearchBackendFailed, SearchRateLimited, TooManyConnections:
		return false
	}
	return true
}

// Error is a named refusal or failure. Message and Hint are secret-free by
// contract (see the package documentation); Err, when set, is the underlying
// cause for errors.Is/As and is never printed by Error, because causes such as
// *url.Error carry the full URL.
type Error struct {
	Code    Code
	Message string
	Hint    string
	// ModelHint, when set, is Hint worded for a model (an MCP client): a
	// hint that names an ocfetch command tells a person to run it, and a
	// model to ask the user to run it ([AskUserToRun]), so that an agent
	// with a shell is never handed the command that widens its own
	// permissions. A front end that speaks to a model shows it through
	// [Error.ForModel]. Empty: Hint serves both.
	ModelHint string
	Err       error
}

// AskUserToRun is the one wording of a hint that names an ocfetch command,
// for a model: "ask the user to run: CMD".
func AskUserToRun(cmd string) string {
	return "ask the user to run: " + cmd
}

// New returns a refusal with code and a secret-free message.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Newf is New with a formatted message. The arguments must be secret-free.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns a copy of e that tells the user what to change. The
// hint serves a model too (any ModelHint of e is dropped).
func (e *Error) WithHint(hint string) *Error {
	c := *e
	c.Hint, c.ModelHint = hint, ""
	return &c
}

// WithHints returns a copy of e with hint, for a person, and forModel,
// the same advice for a model ([Error.ModelHint]): a hint that names an
// ocfetch command gives forModel with [AskUserToRun].
func (e *Error) WithHints(hint, forModel string) *Error {
	c := *e
	c.Hint, c.ModelHint = hint, forModel
	return &c
}

// ForModel returns e with its hint worded for a model: a copy whose Hint
// is e's ModelHint when it has one, else e itself.
func (e *Error) ForModel() *Error {
	if e == nil || e.ModelHint == "" {
		return e
	}
	c := *e
	c.Hint = e.ModelHint
	return &c
}

// Wrap returns a copy of e that carries cause for errors.Is/As. The cause's
// text is never part of Error().
func (e *Error) Wrap(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

// Error returns "code: message", the hint not included.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a refusal with the same code, so that
// errors.Is(err, refusal.New(refusal.NotApproved, "")) matches by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	// errors.AsType, not errors.As: no target escapes to the heap, and a
	// call's every decision asks.
	return errors.AsType[*Error](err)
}

// CodeOf returns the code of the first *Error in err's chain, or "" if none.
func CodeOf(err error) Code {
	if r, ok := As(err); ok {
		return r.Code
	}
	return ""
}
