package search

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/deadline"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/tool"
)

// Name is the tool's name, as models and the audit log see it.
const Name = "search"

// Defaults of Options.
const (
	// DefaultTimeout bounds one call, from the request to the last body
	// byte.
	DefaultTimeout = 15 * time.Second
	// DefaultMaxResponseBytes bounds the backend's answer, counted after
	// decompression.
	DefaultMaxResponseBytes = 2 << 20
	// DefaultUserAgent is sent with every request.
	DefaultUserAgent = "ocfetch/dev (+https://github.com/ocfetch/ocfetch)"
)

// Options configure a Search. The zero value is usable: every bound takes
// its default. Which backend origin may be dialled is not an option: it is
// the broker's admission (policy.Decide's, local mode included).
type Options struct {
	// Timeout bounds one call. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes bounds the answer read. A longer answer is the
	// failure response_too_large (a cut JSON document is no answer).
	// 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// UserAgent is sent with every request. "" means DefaultUserAgent.
	UserAgent string
	// Logger receives one line per decision, domain TOOLS.SEARCH:
	// backend, host, port, status, sizes, reason codes; never the query or
	// the key. nil discards.
	Logger *slog.Logger
}

// Search is the search tool: one query to the configured backend through
// an injected client. It never builds a client; it never fetches the
// results' URLs (each later fetch is decided on its own). A Search is
// safe for concurrent use.
type Search struct {
	// client is New's client with no cookie jar and no redirects.
	client  *http.Client
	backend Backend
	opts    Options
	origin  capability.Origin
	// originErr is set when the backend's endpoint has no usable origin:
	// every call is then refused at PrepareCall.
	originErr error
	// urlHost is origin's host as a request's URL must carry it, and
	// summary AuditSummary's answer: both made once.
	urlHost, summary string
	log              *slog.Logger
}

var _ tool.Tool = (*Search)(nil)

// New returns the search tool for backend, sending through client, which
// the composition root builds (egress.NewClient: the guarded dialer, TLS
// 1.2+, no proxy from the environment). A nil client or backend gives a
// tool whose every run fails closed (internal_error, search_not_configured).
// opts may be nil.
func New(client *http.Client, backend Backend, opts *Options) *Search {
	s := &Search{backend: backend}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = DefaultTimeout
	}
	if client != nil {
		// A copy, made once: the same transport (connections, guard,
		// TLS), without a cookie jar, and redirects are not followed (a
		// key must not travel on). The call's one deadline, from the
		// request to the last body byte, is Options.Timeout unless
		// client's Timeout is shorter; run sets it on the call's context
		// (package deadline: no timer of its own per call), so the copy
		// has no Timeout, which would add a second one.
		c := *client
		c.Jar = nil
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		if c.Timeout > 0 && c.Timeout < s.opts.Timeout {
			s.opts.Timeout = c.Timeout
		}
		c.Timeout = 0
		s.client = &c
	}
	if s.opts.MaxResponseBytes <= 0 {
		s.opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if s.opts.UserAgent == "" {
		s.opts.UserAgent = DefaultUserAgent
	}
	s.log = diag.For(s.opts.Logger, diag.DomainSearch)
	s.summary = "SEARCH <no backend>"
	if backend == nil {
		s.originErr = notConfigured()
	} else if o, err := capability.OriginOf(backend.Endpoint()); err != nil {
		s.originErr = refusal.New(refusal.SearchNotConfigured, "the search backend's URL has no usable origin")
	} else {
		s.origin, s.urlHost = o, o.Host()
		s.summary = backend.Method() + " " + o.Target.Host()
	}
	return s
}

// Backend returns the tool's backend (nil when none is configured).
func (s *Search) Backend() Backend { return s.backend }

const description = `Search the web and return a list of results (title, URL, snippet), ranked by the configured search backend.

Sends the query to one search backend the user configured (a SearXNG instance, Brave Search or Tavily) and returns up to count results (default 10, at most 20). The query goes to that backend only; do not put secrets in it. The results' pages are not fetched: to read one, call fetch with its URL (each new host needs its own approval).

The backend's host needs the user's approval or a saved rule, like any fetch. A refusal or failure is an error result starting with a reason code (not_approved, search_rate_limited, search_backend_failed, timeout, …).`

const inputSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 400, "description": "What to search for, as you would type it into a search engine."},
    "count": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10, "description": "How many results to return at most."}
  },
  "required": ["query"],
  "additionalProperties": false
}`

// Name returns [Name] ([tool.Named]): the tool's name without its Info.
func (*Search) Name() string { return Name }

// Info describes the tool and its arguments (a JSON Schema) to a model.
func (s *Search) Info(context.Context) (*tool.Info, error) {
	return &tool.Info{Name: Name, Description: description, InputSchema: json.RawMessage(inputSchema)}, nil
}

// AuditSummary returns "<METHOD> <backend host>" ("GET api.search.brave.com")
// whatever the arguments: never the query, never the key.
func (s *Search) AuditSummary(string) string { return s.summary }

// prepared is one call's artifact, immutable after PrepareCall.
type prepared struct {
	id    uuid.UUID
	query Query
}

// PrepareCall decodes the arguments strictly, ONCE, and returns the one
// network requirement: the backend endpoint's origin (host, port), which
// the broker decides with policy.Decide as it decides a fetch of that
// origin (https for a public host, local mode for loopback, a rule or an
// approval). The grant pair is empty: search touches no file.
func (s *Search) PrepareCall(ctx context.Context, executionID uuid.UUID, argsJSON string) (tool.Request, tool.PreparedArtifact, error) {
	if s.originErr != nil {
		return tool.Request{}, nil, s.originErr
	}
	a, err := decodeArgs(argsJSON)
	if err != nil {
		s.log.Log(ctx, diag.L2, "prepare refused", "reason", string(refusal.CodeOf(err)))
		return tool.Request{}, nil, err
	}
	count := DefaultResults
	if a.HasCount {
		count = int(a.Count)
	}
	p := &prepared{id: executionID, query: Query{Text: a.Query, Count: count}}
	if s.log.Enabled(ctx, diag.L2) {
		s.log.Log(ctx, diag.L2, "prepared", "backend", s.backend.Name(), "host", s.origin.Target.Host(), "port", s.origin.Target.Port(), "count", count)
	}
	return tool.Request{
		ExecutionID:  executionID,
		Tool:         Name,
		Requirements: []capability.Requirement{capability.NetworkOrigin(s.origin)},
		Summary:      s.summary,
	}, p, nil
}

// InvokableRun sends the prepared query bound to ctx (tool.WithArtifact)
// for its own execution id, and fails closed without it. The raw
// arguments are ignored.
//
// A loopback backend is admitted by local mode again here (the allowlist
// is read on this call) and its port carried on the context for the
// egress guard; a public one admits no loopback port. Redirects are not
// followed (a key must not travel on). Every failure is an error result
// with a reason code; the returned error is always nil.
func (s *Search) InvokableRun(ctx context.Context, _ string) (*tool.Result, error) {
	art, id, ok := tool.ArtifactFrom(ctx)
	p, isOurs := art.(*prepared)
	if !ok || !isOurs || p == nil || p.id != id {
		return tool.ErrorResult(refusal.New(refusal.InternalError, "no prepared search call is bound to this execution; nothing was sent")), nil
	}
	if s.client == nil {
		return tool.ErrorResult(refusal.New(refusal.InternalError, "the search tool has no HTTP client; nothing was sent")), nil
	}
	res, err := s.run(ctx, p)
	if err != nil {
		s.log.Log(ctx, diag.L2, "run failed", "backend", s.backend.Name(), "host", s.origin.Target.Host(), "reason", string(refusal.CodeOf(err)))
		return tool.ErrorResult(err), nil
	}
	return res, nil
}

func (s *Search) run(ctx context.Context, p *prepared) (*tool.Result, error) {
	// Options.Timeout (New) bounds the request and the body read.
	ctx, cancel := deadline.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	// The decision travels to the dial: the broker bound policy.Decide's
	// admission of the backend's origin; the tool decides nothing itself.
	ad, _, ok := tool.AdmissionFor(ctx, s.origin.Target)
	local := s.origin.IsLocal()
	if !ok || (local && ad.LoopbackPort != s.origin.Target.Port()) || (!local && ad.LoopbackPort != 0) {
		return nil, refusal.Newf(refusal.InternalError, "%s: the call's requirement was not decided; nothing was sent", s.who()).
			WithHint("the runtime must decide the call's requirement (policy.Decide) and bind the admission (tool.WithAdmissions) before InvokableRun")
	}
	ctx = egress.WithRequestTarget(ctx, &s.origin.Target, local)
	// The package's own backends, by concrete type: a type of another
	// package that embeds one has its own NewRequest and Parse to call.
	var own ownBackend
	switch b := s.backend.(type) {
	case *SearXNG:
		own = b
	case *Brave:
		own = b
	case *Tavily:
		own = b
	}
	isOwn := own != nil
	var req *http.Request
	var err error
	if isOwn {
		req, err = own.request(ctx, p.query)
	} else if req, err = s.backend.NewRequest(p.query); err == nil {
		req = req.WithContext(ctx)
	}
	if err != nil {
		return nil, refusal.Newf(refusal.InternalError, "%s: the request could not be built", s.who())
	}
	if req.URL == nil || req.URL.Scheme != s.origin.Scheme || req.URL.Host != s.urlHost {
		// A backend's request must go to its endpoint's origin: the one
		// the decision was about.
		return nil, refusal.Newf(refusal.InternalError, "%s: the backend built a request for another origin; nothing was sent", s.who())
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)

	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.requestError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// The status names the failure. The body is never read: it is
		// never quoted, and one over the cap or stalled must not turn
		// the status (and a 429's Retry-After) into response_too_large
		// or timeout.
		if s.log.Enabled(ctx, diag.L2) {
			s.log.Log(ctx, diag.L2, "answer", "backend", s.backend.Name(), "host", s.origin.Target.Host(), "status", resp.StatusCode,
				"elapsed", time.Since(start))
		}
		return nil, statusError(s.who(), resp, time.Now()) // who is worded for a refusal only
	}
	buf := answerBuf()
	defer releaseAnswerBuf(buf)
	body, err := readBody(*buf, resp.Body, resp.ContentLength, s.opts.MaxResponseBytes)
	if body != nil {
		*buf = body // grown, kept for the next call
	}
	if err != nil {
		if err == errTooLarge {
			return nil, refusal.Newf(refusal.ResponseTooLarge, "%s: the answer is larger than %d bytes", s.who(), s.opts.MaxResponseBytes).
				WithHints("ask for fewer results (count), or raise the answer cap", "ask for fewer results (count)")
		}
		return nil, s.requestError(ctx, err)
	}
	if s.log.Enabled(ctx, diag.L2) {
		s.log.Log(ctx, diag.L2, "answer", "backend", s.backend.Name(), "host", s.origin.Target.Host(), "status", resp.StatusCode,
			"bytes", len(body), "elapsed", time.Since(start))
	}
	out := Output{Backend: s.backend.Name(), Host: s.origin.Target.Host()}
	var content string
	if isOwn {
		if content, err = present(own.answer(), body, p.query.Count, &out); err != nil {
			return nil, s.answerError(resp.StatusCode, err)
		}
	} else {
		hits, err := s.backend.Parse(body)
		if err != nil {
			return nil, s.answerError(resp.StatusCode, err)
		}
		out.Results, out.Dropped = clean(hits, p.query.Count)
		out.Count = len(out.Results)
		content = Render(out)
	}
	return &tool.Result{Content: content, Structured: out, Status: resp.StatusCode, Bytes: int64(len(body))}, nil
}

// answerError names a 2xx answer that is not the backend's documented
// shape (err, from its parse).
func (s *Search) answerError(status int, err error) error {
	return refusal.Newf(refusal.SearchBackendFailed, "%s answered HTTP %d with a body that is not a valid %s answer", s.who(), status, s.backend.Name()).
		WithHints("check that the backend URL is the search API (for SearXNG, that the json format is enabled in its settings.yml)", misconfiguredHint(notSearchAPI)).Wrap(err)
}

// who names the backend in messages: its name and host:port, never the
// URL's path or query.
func (s *Search) who() string {
	return fmt.Sprintf("%s at %s", s.backend.Name(), s.origin.Target.String())
}

func notConfigured() *refusal.Error {
	return refusal.New(refusal.SearchNotConfigured, "no search backend is configured").
		WithHint("write " + ConfigName + " in ocfetch's configuration directory, or pass --backend (see README, Web search)")
}
