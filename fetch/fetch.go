package fetch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/respcache"
	"github.com/ocfetch/ocfetch/robotscheck"
	"github.com/ocfetch/ocfetch/tool"
)

// Name is the tool's name, as models and the audit log see it.
const Name = "fetch"

// Defaults of Options.
const (
	// DefaultMaxBodyBytes bounds the response body read, counted after
	// decompression.
	DefaultMaxBodyBytes = 5 << 20
	// DefaultTimeout bounds one call from the request to the last body byte.
	DefaultTimeout = 30 * time.Second
	// DefaultUserAgent is sent unless the call sets User-Agent itself.
	DefaultUserAgent = "ocfetch/dev (+https://github.com/ocfetch/ocfetch)"
	// maxRedirects is the most redirect hops followed (all on target).
	maxRedirects = 10
)

// Options configure a Fetch. The zero value is usable: every bound takes
// its default. A Fetch knows no workspace and no profile: what a call may
// reach is the decision the broker binds to the run (tool.WithAdmissions).
type Options struct {
	// MaxBodyBytes bounds the response body read, after decompression. A
	// longer body is cut there and the result says so. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// DefaultMaxLength is the max_length (runes of content returned) of a
	// call that does not set one. 0 means fetchargs.DefaultMaxLength.
	DefaultMaxLength int
	// Timeout bounds one call, redirects and body included, on top of the
	// client's own Timeout. 0 means DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent unless the call sets User-Agent. "" means
	// DefaultUserAgent.
	UserAgent string
	// Robots, if set, is the robots.txt check (--respect-robots): before
	// a call sends anything, its origin's robots.txt is read under the
	// same decision as the page, and a page it disallows for
	// robotscheck.Agent is refused, robots_disallowed (see
	// [robotscheck.Checker]). Share one Checker across the Fetches of a
	// session: it is the cache. nil: robots.txt is neither read nor obeyed.
	Robots *robotscheck.Checker
	// Logger receives one debug line per decision, domain TOOLS.FETCH,
	// secret-free (method, host, port, status, sizes, reason codes): decisions
	// at diag.L2, per-hop detail at diag.L3. nil
	// discards.
	Logger *slog.Logger
	// Cache, when set, is the response cache the runs' transport goes
	// through ([respcache.Cache]: GET responses of public hosts, read no
	// further than the call's max_bytes); nil fetches every response.
	Cache *respcache.Cache
}

// Fetch is the Fetch tool: one bounded HTTP GET or POST through an injected
// client. It has no filesystem access of its own, decides nothing about
// admission, and never constructs a client. A Fetch is safe for
// concurrent use; its artifacts are immutable.
type Fetch struct {
	client           *http.Client
	opts             Options
	maxBody          int64
	defaultMaxLength int
	timeout          time.Duration
	userAgent        string
	log              *slog.Logger
}

var _ tool.Tool = (*Fetch)(nil)

// NewFetch returns the Fetch tool bound to client, which the composition
// root builds (egress.NewClient: the guarded dialer, TLS 1.2+, an explicit
// Timeout, no proxy from the environment). Fetch never builds a client and
// never mutates this one: each run uses a shallow copy carrying its own
// redirect policy. A nil client gives a Fetch that prepares calls but fails
// every run closed (internal_error). opts may be nil.
func NewFetch(client *http.Client, opts *Options) *Fetch {
	f := &Fetch{client: client}
	if opts != nil {
		f.opts = *opts
	}
	f.maxBody = f.opts.MaxBodyBytes
	if f.maxBody <= 0 {
		f.maxBody = DefaultMaxBodyBytes
	}
	f.defaultMaxLength = f.opts.DefaultMaxLength
	if f.defaultMaxLength <= 0 || f.defaultMaxLength > fetchargs.MaxMaxLength {
		f.defaultMaxLength = fetchargs.DefaultMaxLength
	}
	f.timeout = f.opts.Timeout
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	f.userAgent = f.opts.UserAgent
	if f.userAgent == "" {
		f.userAgent = DefaultUserAgent
	}
	f.log = discard
	if f.opts.Logger != nil {
		f.log = diag.For(f.opts.Logger, diag.DomainFetch)
	}
	return f
}

// discard is the logger of a Fetch without one (slog.Logger is immutable:
// one serves every Fetch, and a front end makes a Fetch per call).
var discard = diag.Discard()

// descriptionFormat is the tool's description; %d is the default
// max_length of this Fetch's calls, %s its body cap (byteSize).
const descriptionFormat = `Fetch one web page or HTTP resource and return its content as text.

Makes a single HTTP GET (or POST) request to an https:// URL and returns the response status, a short header summary (content-type, content-length, location, last-modified, etag, server) and the body converted for reading: "markdown" (default; the main content of an HTML page as Markdown), "text" (plain text), or "raw" (the body as received, decoded to UTF-8).

Long content is returned in windows of max_length characters (default %d); when the result says it is truncated, call again with start_index set to the next_start_index it gives to read on. The response body read is capped (%s by default) and a cut body is reported.

Rules: public hosts must use https. http://localhost, 127.0.0.1 or [::1] work only with an explicit port the user has allowed for this project (local mode). URLs with user:password@ are refused; send credentials as a header. Redirects are followed only within the same scheme, host and port (at most 10); a redirect elsewhere is reported, not followed, so fetch its location in a new call if needed. Each new host needs the user's approval. A 4xx or 5xx response is a delivered result, not an error.`

// robotsDescription ends the description when robots.txt is obeyed.
const robotsDescription = ` This server respects robots.txt: a page the site's robots.txt disallows for user agent ocfetch is refused (robots_disallowed); tell the user, who can open it themselves.`

// Name returns [Name] ([tool.Named]): the tool's name without its Info.
func (*Fetch) Name() string { return Name }

// Info describes the tool and its arguments (a JSON Schema) to a model.
func (f *Fetch) Info(context.Context) (*tool.Info, error) {
	schema := fetchargs.SchemaFor(max(int64(f.timeout/time.Second), 1), f.maxBody, f.defaultMaxLength)
	desc := fmt.Sprintf(descriptionFormat, f.defaultMaxLength, byteSize(f.maxBody))
	if f.opts.Robots != nil {
		desc += robotsDescription
	}
	return &tool.Info{Name: Name, Description: desc, InputSchema: schema}, nil
}

// byteSize is n bytes as the description says it: "5 MiB", "64 KiB",
// "1000 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// logDecision writes the one line for a refusal: its code and, when known,
// the method and host. Never the message of a non-refusal error.
func (f *Fetch) logDecision(ctx context.Context, msg string, err error, p *prepared) {
	if !f.log.Enabled(ctx, diag.L2) {
		return
	}
	attrs := []any{"reason", string(reasonOf(err))}
	if p != nil && p.target.Host() != "" {
		attrs = append(attrs, "method", p.method, "host", p.target.Host(), "port", p.target.Port())
	}
	f.log.Log(ctx, diag.L2, msg, attrs...)
}

func reasonOf(err error) refusal.Code {
	if c := refusal.CodeOf(err); c != "" {
		return c
	}
	return refusal.InternalError
}
