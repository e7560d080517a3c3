package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/tool"
)

// prepared is the artifact of one call: everything InvokableRun needs,
// normalised once by PrepareCall. It is immutable after PrepareCall returns.
type prepared struct {
	id     uuid.UUID
	method string
	// url is the request URL rebuilt from its parts with the normalised
	// ASCII host, so the host on the wire is the approved host. It carries
	// no userinfo and no fragment.
	url *url.URL
	// target is what the requirement names: normalised host and the
	// explicit or default port (origin.Target).
	target capability.Target
	scheme string
	// origin is the URL's parsed origin (scheme, normalised host, port and
	// whether it was written), parsed once: local-mode admission and every
	// redirect hop take it typed, and no path or query reaches another
	// package.
	origin     capability.Origin
	local      bool
	header     http.Header
	body       string
	hasBody    bool
	format     content.Format
	maxLength  int
	startIndex int
	// timeout and maxBody bound this call: the Fetch's (the caps), or
	// less when the call's timeout or max_bytes asks.
	timeout time.Duration
	maxBody int64
}

// PrepareCall decodes, validates and normalises one call, ONCE, and returns
// the single network requirement it needs with an empty grant pair (fetch
// touches no file), and the artifact InvokableRun will execute.
//
// The decisions, in order: strict decoding (see the package doc); method GET
// or POST; a body only with POST, at most 64 KiB; bounded headers, none of
// Host, hop-by-hop or Proxy-*; an absolute http(s) URL without credentials,
// its fragment dropped, its origin parsed once (capability.OriginOf: host
// normalised — IDNA to ASCII, lowercase, IPv6 compressed, look-alikes
// refused — and the port explicit or the scheme's default). PrepareCall
// only parses and normalises: whether the origin may be reached (local
// mode, the address check, https for public hosts, rules, approval) is
// policy.Decide's, asked by the broker with the requirement's origin.
//
// Every failure is a *refusal.Error whose message names at most the field,
// header name, scheme, host or port: never the path, query, header values
// or body.
func (f *Fetch) PrepareCall(ctx context.Context, executionID uuid.UUID, argsJSON string) (tool.Request, tool.PreparedArtifact, error) {
	p, err := f.prepare(executionID, argsJSON)
	if err != nil {
		f.logDecision(ctx, "prepare refused", err, p)
		return tool.Request{}, nil, err
	}
	if f.log.Enabled(ctx, diag.L2) {
		f.log.Log(ctx, diag.L2, "prepared", "method", p.method, "host", p.target.Host(), "port", p.target.Port(), "local", p.local)
	}
	req := tool.Request{
		ExecutionID:  executionID,
		Tool:         Name,
		Requirements: []capability.Requirement{capability.NetworkOrigin(p.origin)},
		// AuditSummary's words for this call, from the host parsed once.
		Summary: p.method + " " + p.target.Host(),
	}
	return req, p, nil
}

func (f *Fetch) prepare(id uuid.UUID, argsJSON string) (*prepared, error) {
	a, err := fetchargs.Decode(argsJSON)
	if err != nil {
		return nil, err
	}
	p := &prepared{id: id, body: a.Body, hasBody: a.HasBody}

	switch {
	case a.Method == "" || strings.EqualFold(a.Method, http.MethodGet):
		p.method = http.MethodGet
	case strings.EqualFold(a.Method, http.MethodPost):
		p.method = http.MethodPost
	default:
		return nil, fetchargs.Invalid("method " + strconv.Quote(safetext.Short(a.Method)) + " is not allowed; use GET or POST")
	}
	if p.hasBody && p.method != http.MethodPost {
		return nil, fetchargs.Invalid("a body is allowed with POST only")
	}
	if len(p.body) > fetchargs.MaxRequestBodyBytes {
		return nil, fetchargs.Invalid("body is larger than 64 KiB")
	}
	if p.header, err = fetchargs.ValidateHeaders(a.Headers); err != nil {
		return nil, err
	}
	if p.format, err = content.ParseFormat(a.Format); err != nil {
		return nil, fetchargs.Invalid(`field format must be "markdown", "text" or "raw"`)
	}
	p.maxLength = f.defaultMaxLength
	if a.HasMaxLen {
		if a.MaxLength < 1 || a.MaxLength > fetchargs.MaxMaxLength {
			return nil, fetchargs.Invalid("field max_length must be an integer from 1 to " + strconv.Itoa(fetchargs.MaxMaxLength))
		}
		p.maxLength = int(a.MaxLength)
	}
	if a.StartIndex < 0 || a.StartIndex > fetchargs.MaxStartIndex {
		return nil, fetchargs.Invalid("field start_index must be an integer from 0 to " + strconv.Itoa(fetchargs.MaxStartIndex))
	}
	p.startIndex = int(a.StartIndex)
	p.timeout, p.maxBody = f.timeout, f.maxBody
	if a.HasTimeout {
		capSec := int64(f.timeout / time.Second)
		if a.Timeout < 1 || a.Timeout > max(capSec, 1) {
			return nil, fetchargs.Invalid("field timeout must be an integer number of seconds from 1 to " + strconv.FormatInt(max(capSec, 1), 10) + " (the server's cap)")
		}
		p.timeout = min(time.Duration(a.Timeout)*time.Second, f.timeout)
	}
	if a.HasMaxBytes {
		if a.MaxBytes < 1 || a.MaxBytes > f.maxBody {
			return nil, fetchargs.Invalid("field max_bytes must be an integer from 1 to " + strconv.FormatInt(f.maxBody, 10) + " (the server's cap)")
		}
		p.maxBody = a.MaxBytes
	}

	if err := f.prepareURL(p, a.URL); err != nil {
		return p, err
	}
	return p, nil
}

// prepareURL validates raw and fills p's url, target, scheme, origin and
// local fields. On a refusal after the host is known, p.target is set
// so the caller can log it.
func (f *Fetch) prepareURL(p *prepared, raw string) error {
	if len(raw) > fetchargs.MaxURLBytes {
		return fetchargs.Invalid("url is longer than 16 KiB")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fetchargs.Invalid("url is not a valid URL")
	}
	if u.Scheme == "" {
		return fetchargs.Invalid("url must be absolute, with a scheme and a host (https://host/…)")
	}
	scheme := u.Scheme // url.Parse lowercases it
	if capability.DefaultPort(scheme) == 0 {
		return refusal.Newf(refusal.SchemeNotAllowed, "scheme %s is not allowed; only https (and http for local mode) are fetched", safetext.Short(scheme)).
			WithHint("use an https:// URL")
	}
	if u.Opaque != "" {
		return fetchargs.Invalid("url must be absolute, with a scheme and a host (" + scheme + "://host/…)")
	}
	if u.User != nil {
		return refusal.New(refusal.CredentialsInURL, "the URL carries credentials (user:password@); they are never sent").
			WithHint("remove the credentials from the URL; if the site needs them, send an Authorization header")
	}
	if u.Host == "" {
		return fetchargs.Invalid("url has no host")
	}
	o, err := capability.OriginOf(u)
	switch {
	case errors.Is(err, capability.ErrInvalidHost):
		// capability's errors name a sanitized host only; the code already
		// says "invalid host", so the message starts with what is wrong.
		msg := strings.TrimPrefix(err.Error(), capability.ErrInvalidHost.Error()+": ")
		return refusal.New(refusal.InvalidHost, msg).WithHint("use a host name in ASCII or a canonical IP address")
	case err != nil:
		return fetchargs.Invalid("the URL's " + strings.TrimPrefix(err.Error(), capability.ErrInvalidPort.Error()+": "))
	}
	p.origin, p.target, p.scheme, p.local = o, o.Target, scheme, o.IsLocal()
	p.url = &url.URL{
		Scheme:     scheme,
		Host:       o.Host(),
		Path:       u.Path,
		RawPath:    u.RawPath,
		RawQuery:   u.RawQuery,
		ForceQuery: u.ForceQuery,
	}
	return nil
}
