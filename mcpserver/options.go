package mcpserver

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/search"
	"github.com/ocfetch/ocfetch/tool"
)

// DefaultFetchTimeout is the Timeout of the guarded fetch client when
// [Options.Egress] does not set one.
const DefaultFetchTimeout = 30 * time.Second

// Options configure [NewServer] and [Serve]. A nil *Options is the zero
// value: stdio on os.Stdin/os.Stdout, the workspace root from the client's
// roots or the current directory, the profile from settings.json, no logs.
type Options struct {
	// Root is the --root flag. If set, it is the workspace root for every
	// call and the client's roots are never asked for. If empty, the root
	// is the client's first file:// root (MCP roots) when the client
	// declares roots, else the current directory at startup.
	Root string
	// Profile is the --profile flag ("" when unset): an explicit risk
	// profile that overrides settings.json. An invalid name fails NewServer.
	Profile string

	// HTTPAddr selects the transport of [Serve]: empty means stdio; else
	// streamable HTTP on HTTPAddr, which must be a loopback address
	// ("127.0.0.1:8080", "[::1]:0", "localhost:8080"). Anything else is
	// refused with [ErrNotLoopback].
	HTTPAddr string
	// Listener, if set, is used by [Serve] instead of listening on
	// HTTPAddr (which may then be empty); its address must be loopback too.
	// Serve closes it.
	Listener net.Listener
	// Ready, if set, is called by [Serve] with the bound HTTP address once
	// the server accepts connections (useful with port 0).
	Ready func(addr net.Addr)

	// BearerToken is what every request of streamable HTTP must carry as
	// "Authorization: Bearer TOKEN"; anything else gets 401 and reaches
	// nothing. Required for HTTP ([ErrNoToken]): 16 to 512 printable ASCII
	// characters. [LoadOrCreateToken] keeps one in a 0600 file.
	BearerToken string
	// SessionTimeout closes an MCP HTTP session idle (no request from its
	// client) for that long, freeing its memory. 0 means
	// [DefaultSessionTimeout].
	SessionTimeout time.Duration
	// MaxSessions bounds the open MCP HTTP sessions (--max-sessions): at
	// the bound a new session closes the least recently used idle one (its
	// client gets 404 and starts a new session) and is refused with 503
	// only when every open session has a request in flight (an
	// initialize still in flight holds its place as one). 0 means
	// [DefaultMaxSessions].
	MaxSessions int

	// Stdin and Stdout carry the stdio transport. If nil, os.Stdin and
	// os.Stdout. Nothing but protocol messages is ever written to Stdout.
	// Stdin is closed when the session ends if it is an io.Closer (that is
	// what unblocks a pending read); Stdout is never closed.
	Stdin  io.Reader
	Stdout io.Writer

	// Logger receives diagnostics (domain MCP and the broker's and fetch's
	// domains). It must not write to Stdout. If nil, they are dropped.
	Logger *slog.Logger

	// Egress configures the one guarded HTTP client the server builds for
	// the fetch tool (egress.NewClient). If nil, egress defaults with a
	// Timeout of [DefaultFetchTimeout]. Tests inject a Resolver, Dial and
	// RootCAs here.
	Egress *egress.Options
	// MaxBodyBytes bounds the response body read by fetch (after
	// decompression). 0 means fetch's default.
	MaxBodyBytes int64

	// FetchTimeout bounds one fetch (--timeout); 0 means fetch's default.
	FetchTimeout time.Duration
	// DefaultMaxLength is the max_length of a call that sets none
	// (--max-length); 0 means fetch's default.
	DefaultMaxLength int
	// UserAgent is sent unless a call sets User-Agent (--user-agent); ""
	// means "ocfetch/VERSION (+https://github.com/ocfetch/ocfetch)".
	UserAgent string

	// Robots, if set, is the robots.txt check of every fetch
	// (--respect-robots, fetch.Options.Robots): a page the site's
	// robots.txt disallows is refused, robots_disallowed; the one Checker is
	// the server's cache of robots.txt files. nil: robots.txt is not read.
	Robots *robotscheck.Checker

	// CacheTTL is how long the response cache keeps a GET response
	// (--cache-ttl); 0 means respcache.DefaultTTL, a negative value disables
	// the cache.
	CacheTTL time.Duration

	// Version is reported as the server's version. "" means "dev".
	Version string

	// maxLine overrides [MaxLineBytes] for the stdio transport (tests).
	maxLine int
	// maxCalls overrides [MaxConcurrentCalls] (tests).
	maxCalls int
	// Layers locate the managed policy, the trust store and the user's
	// rules (policy.Layers), read on every call. Nil: the platform's
	// places. A workspace's own grants (a permissive profile, local ports,
	// allow rules) count only when the user trusts it.
	Layers *policy.Layers
	// UpstreamFrom says where Egress.Upstream came from: scope.FromSettings
	// when it is the upstream_proxy of the --root workspace's
	// settings.json, a workspace grant refused in an untrusted workspace;
	// anything else is the operator's choice (a flag).
	UpstreamFrom scope.Source

	// AuditSink receives a copy of every audit line (an exporter to an
	// OpenTelemetry collector, package auditexport); nil for none.
	AuditSink audit.Sink

	// Search is the backend of the second tool, search (issue 24). Nil:
	// only fetch is served.
	Search search.Backend

	// newTool builds the tool for one call; nil means the fetch tool. Tests
	// set it (export_test.go) to exercise approval without a network.
	newTool func(client *http.Client) tool.Tool
}
