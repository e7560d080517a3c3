package fetch

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
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
	// explicit or default port.
	target capability.Target
	scheme string
	// origin is scheme://host[:port]/ exactly as the URL spells its port
	// (explicit or not): the form local-mode admission is asked about, so
	// that no path or query ever reaches another package.
	origin     string
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

// isLocalHost reports whether a normalised host is one of local mode's
// three hosts (seed 000), as localfetch lists them.
func isLocalHost(h string) bool { return slices.Contains(localfetch.LocalHosts[:], h) }

// PrepareCall decodes, validates and normalises one call, ONCE, and returns
// the single network requirement it needs with an empty grant pair (fetch
// touches no file), and the artifact InvokableRun will execute.
//
// The decisions, in order: strict decoding (see the package doc); method GET
// or POST; a body only with POST, at most 64 KiB; bounded headers, none of
// Host, hop-by-hop or Proxy-*; an absolute http(s) URL without credentials,
// its fragment dropped, its host normalised (IDNA to ASCII, lowercase, IPv6
// compressed) and its port explicit or the scheme's default. A URL on
// localhost, 127.0.0.1 or ::1 is a local-mode candidate: it is admitted by
// the workspace allowlist and the permissive profile now, or refused by name
// and never treated as public. Any other IP literal must be public
// (127.0.0.2, ::ffff:127.0.0.1, 0.0.0.0, :: are refused here, by name), and
// every public target must use https.
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
	f.log.Log(ctx, diag.L2, "prepared", "method", p.method, "host", p.target.Host, "port", p.target.Port, "local", p.local)
	req := tool.Request{
		ExecutionID:  executionID,
		Tool:         Name,
		Requirements: []capability.Requirement{capability.Network(p.target)},
	}
	return req, p, nil
}

func (f *Fetch) prepare(id uuid.UUID, argsJSON string) (*prepared, error) {
	a, err := decodeArgs(argsJSON)
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
		return nil, errArgs("method " + strconv.Quote(capability.Sanitize(a.Method)) + " is not allowed; use GET or POST")
	}
	if p.hasBody && p.method != http.MethodPost {
		return nil, errArgs("a body is allowed with POST only")
	}
	if len(p.body) > MaxRequestBodyBytes {
		return nil, errArgs("body is larger than 64 KiB")
	}
	if p.header, err = validateHeaders(a.Headers); err != nil {
		return nil, err
	}
	if p.format, err = content.ParseFormat(a.Format); err != nil {
		return nil, errArgs(`field format must be "markdown", "text" or "raw"`)
	}
	p.maxLength = f.defaultMaxLength
	if a.HasMaxLen {
		if a.MaxLength < 1 || a.MaxLength > MaxMaxLength {
			return nil, errArgs("field max_length must be an integer from 1 to " + strconv.Itoa(MaxMaxLength))
		}
		p.maxLength = int(a.MaxLength)
	}
	if a.StartIndex < 0 || a.StartIndex > MaxStartIndex {
		return nil, errArgs("field start_index must be an integer of 0 or more")
	}
	p.startIndex = int(a.StartIndex)
	p.timeout, p.maxBody = f.timeout, f.maxBody
	if a.HasTimeout {
		capSec := int64(f.timeout / time.Second)
		if a.Timeout < 1 || a.Timeout > max(capSec, 1) {
			return nil, errArgs("field timeout must be an integer number of seconds from 1 to " + strconv.FormatInt(max(capSec, 1), 10) + " (the server's cap)")
		}
		p.timeout = min(time.Duration(a.Timeout)*time.Second, f.timeout)
	}
	if a.HasMaxBytes {
		if a.MaxBytes < 1 || a.MaxBytes > f.maxBody {
			return nil, errArgs("field max_bytes must be an integer from 1 to " + strconv.FormatInt(f.maxBody, 10) + " (the server's cap)")
		}
		p.maxBody = a.MaxBytes
	}

	if err := f.prepareURL(p, a.URL); err != nil {
		return p, err
	}
	return p, nil
}

// prepareURL validates raw and fills p's url, target, scheme, origin and
// local fields. On a refusal after the host is known, p.target.Host is set
// so the caller can log it.
func (f *Fetch) prepareURL(p *prepared, raw string) error {
	if len(raw) > MaxURLBytes {
		return errArgs("url is longer than 16 KiB")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errArgs("url is not a valid URL")
	}
	if u.Scheme == "" {
		return errArgs("url must be absolute, with a scheme and a host (https://host/…)")
	}
	scheme := u.Scheme // url.Parse lowercases it
	if scheme != "http" && scheme != "https" {
		return refusal.Newf(refusal.SchemeNotAllowed, "scheme %s is not allowed; only https (and http for local mode) are fetched", capability.Sanitize(scheme)).
			WithHint("use an https:// URL")
	}
	if u.Opaque != "" {
		return errArgs("url must be absolute, with a scheme and a host (" + scheme + "://host/…)")
	}
	if u.User != nil {
		return refusal.New(refusal.CredentialsInURL, "the URL carries credentials (user:password@); they are never sent").
			WithHint("remove the credentials from the URL; if the site needs them, send an Authorization header")
	}
	if u.Host == "" {
		return errArgs("url has no host")
	}
	host, err := capability.NormalizeHost(u.Hostname())
	if err != nil {
		return refusal.New(refusal.InvalidHost, err.Error()). // capability's errors name a sanitized host only
									WithHint("use a host name or a canonical IP address")
	}
	p.target.Host = host
	var port uint16
	explicit := u.Port() != ""
	if explicit {
		if port, err = capability.ParsePort(u.Port()); err != nil {
			return errArgs("the URL's " + err.Error())
		}
	} else if scheme == "https" {
		port = 443
	} else {
		port = 80
	}
	p.target.Port = port
	p.scheme = scheme

	urlHost := host
	if strings.IndexByte(host, ':') >= 0 {
		urlHost = "[" + host + "]"
	}
	if explicit {
		urlHost = net.JoinHostPort(host, u.Port())
	}
	p.origin = scheme + "://" + urlHost + "/"
	p.url = &url.URL{
		Scheme:     scheme,
		Host:       urlHost,
		Path:       u.Path,
		RawPath:    u.RawPath,
		RawQuery:   u.RawQuery,
		ForceQuery: u.ForceQuery,
	}

	// A local candidate is admitted or refused here and never falls through
	// to the public path. The test is localfetch.IsLocalTarget's (an http
	// or https URL whose host normalises to one of localfetch.LocalHosts),
	// applied to the host already normalised above rather than by parsing
	// the URL a second time; FuzzPrepareCall checks the two agree.
	if isLocalHost(host) {
		p.local = true
		return f.admitLocal(p)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := egress.CheckPublic(addr); err != nil {
			return err
		}
	}
	if scheme != "https" {
		return refusal.Newf(refusal.HTTPSRequired, "scheme http is not allowed for %s; public hosts are fetched over https only", host).
			WithHint("use https://")
	}
	return nil
}

// admitLocal asks localfetch to admit p's origin (scheme, normalised host
// and the port as written) under the workspace allowlist and the profile.
// The allowlist file is read on every call, so it is asked again at run time
// and on every redirect hop.
func (f *Fetch) admitLocal(p *prepared) error {
	port, err := localfetch.AdmitLocalURL(p.origin, f.opts.Workspace, f.opts.Profile)
	if err != nil {
		if _, ok := refusal.As(err); ok {
			return err
		}
		return refusal.Newf(refusal.LocalAllowlistInvalid, "local mode refused %s:%d", hostForMessage(p.target.Host), p.target.Port).Wrap(err)
	}
	if port != p.target.Port {
		return refusal.Newf(refusal.InternalError, "local mode admitted port %d for a URL on port %d", port, p.target.Port)
	}
	return nil
}

// hostForMessage brackets an IPv6 host for "host:port" messages.
func hostForMessage(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + h + "]"
	}
	return h
}
