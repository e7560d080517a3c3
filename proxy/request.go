package proxy

import (
	"bufio"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// errHeadTooLarge is returned by a [headLimitReader] past its limit.
var errHeadTooLarge = errors.New("request head too large")

// headLimitReader lets at most n bytes through while a request head is read,
// then is lifted (n = math.MaxInt64) for the body or the tunnel.
type headLimitReader struct {
	r io.Reader
	n int64
}

func (l *headLimitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// readHead reads one request head through the size limit. limit bytes may
// be read in all; the 4 KiB of slack allows for the bufio.Reader reading a
// little of the body in the same read as the end of the head.
func readHead(br *bufio.Reader, lim *headLimitReader, limit int) (*http.Request, error) {
	lim.n = int64(limit) + int64(br.Size())
	req, err := http.ReadRequest(br)
	lim.n = math.MaxInt64
	if err != nil {
		if errors.Is(err, errHeadTooLarge) {
			return nil, errHeadTooLarge
		}
		return nil, err
	}
	return req, nil
}

// kind is what a request asks of the proxy.
type kind int

const (
	kindConnect kind = iota // CONNECT host:port: a tunnel
	kindForward             // absolute-form http:// request
)

// parsedRequest is a request head reduced to what policy needs.
type parsedRequest struct {
	kind kind
	// method is "CONNECT", or the request's method if it is a short
	// plain token, else "OTHER" (sanitizeMethod): it is written in the
	// audit line, which refuses anything else.
	method string
	target capability.Target
	// host is the host a request refused before it had a target named
	// (https in absolute form, credentials in the URL, a CONNECT without
	// a port, a bad header field), normalised: for the audit summary
	// only. "" when it named none that parses.
	host string
}

// summary is the audit summary: "<METHOD> <host>", never a path or query.
// A request that named no host that parses reads "GET -".
func (p parsedRequest) summary() string {
	switch {
	case p.target.Host() != "":
		return p.method + " " + p.target.Host()
	case p.host != "":
		return p.method + " " + p.host
	}
	return p.method + " -"
}

// namedHost is the host req names (its CONNECT authority, or its URL's
// host), normalised, or "" when it names none that parses: the audit
// summary of a request refused before it had a target.
func namedHost(req *http.Request) string {
	hostport := ""
	switch {
	case req.Method == http.MethodConnect:
		if !strings.ContainsAny(req.RequestURI, "/@?#") {
			hostport = req.RequestURI
		}
	case req.URL != nil && req.URL.IsAbs():
		hostport = req.URL.Host
	}
	if hostport == "" {
		return ""
	}
	// Any default port: only the host is wanted (a CONNECT without a
	// port names its host all the same).
	t, err := parseTarget(hostport, 1)
	if err != nil {
		return ""
	}
	return t.Host()
}

// parseRequest validates a request head read by the proxy and returns its
// target. It accepts exactly two forms:
//
//   - CONNECT with an authority-form target "host:port" (the port is
//     required, no path, no userinfo): a tunnel;
//   - an absolute-form "http://host[:port]/path" request with any other
//     method, without userinfo: forwarded. An "https://" absolute-form
//     request is refused (clients tunnel https with CONNECT, and the proxy
//     does not originate TLS for them), and so is an origin-form request
//     ("GET /path"): this is a proxy, not an origin server.
//
// The host is normalised with capability.ParseTarget, as rules and the
// dialer see it. Errors are *refusal.Error values whose messages name at
// most the method, scheme and a sanitized host — never a path or query.
func parseRequest(req *http.Request) (parsedRequest, *refusal.Error) {
	if r := checkHeaderFields(req.Header); r != nil {
		return parsedRequest{}, r
	}
	if req.Method == http.MethodConnect {
		return parseConnect(req.RequestURI)
	}
	u := req.URL
	if u == nil || !u.IsAbs() || u.Host == "" {
		return parsedRequest{}, refusal.Newf(refusal.InvalidArguments,
			"%s request is not in absolute form; this is a proxy", safetext.Short(req.Method)).
			WithHint("send http:// URLs in absolute form, or https through CONNECT (set HTTP_PROXY and HTTPS_PROXY)")
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
	case "https":
		return parsedRequest{}, refusal.Newf(refusal.SchemeNotAllowed,
			"https:// absolute-form requests are not forwarded; the proxy tunnels https with CONNECT").
			WithHint("let the client use CONNECT for https (set HTTPS_PROXY)")
	default:
		return parsedRequest{}, refusal.Newf(refusal.SchemeNotAllowed,
			"scheme %q is not forwarded; only http:// requests and CONNECT tunnels are", safetext.Short(u.Scheme)).
			WithHint("use http:// or https:// URLs")
	}
	if u.User != nil {
		return parsedRequest{}, refusal.New(refusal.CredentialsInURL,
			"the request URL carries credentials (user:pass@)").
			WithHint("send credentials in a header, not in the URL")
	}
	t, err := parseTarget(u.Host, 80)
	if err != nil {
		return parsedRequest{}, invalidHost(err)
	}
	// The method is for the audit line, the diagnostics and Refused only
	// (the request goes upstream with its own): an HTTP token may hold
	// '#', '&' or '%' or be longer than an audit summary, which the
	// audit log refuses to write, so it is sanitized as every other
	// front's method is.
	return parsedRequest{kind: kindForward, method: sanitizeMethod(req.Method), target: t}, nil
}

// checkHeaderFields refuses a head with a header name or value that is
// not valid HTTP, as net/http's server does after http.ReadRequest (which
// does not): white space between a name and its colon ("Transfer-Encoding
// : chunked", RFC 9112 §5.1 says 400) or a control character in a value.
// The upstream transport would refuse to write such a field, after the
// request had been admitted, as a failure to connect. The message names
// neither the field nor its value.
func checkHeaderFields(h http.Header) *refusal.Error {
	for k, vv := range h {
		if !httpguts.ValidHeaderFieldName(k) {
			return refusal.New(refusal.InvalidArguments, "the request head has a header field name that is not valid HTTP").
				WithHint("write header fields as Name: value, with no space before the colon")
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return refusal.New(refusal.InvalidArguments, "the request head has a header field value with a control character").
					WithHint("send header values without control characters")
			}
		}
	}
	return nil
}

func parseConnect(authority string) (parsedRequest, *refusal.Error) {
	if authority == "" || strings.ContainsAny(authority, "/@?#") {
		return parsedRequest{}, refusal.New(refusal.InvalidArguments,
			"CONNECT target is not host:port").
			WithHint("CONNECT takes host:port, e.g. CONNECT example.com:443")
	}
	// A port is required: ParseTarget with default port 0 refuses a
	// target without one.
	t, err := parseTarget(authority, 0)
	if err != nil {
		return parsedRequest{}, invalidHost(err)
	}
	return parsedRequest{kind: kindConnect, method: http.MethodConnect, target: t}, nil
}

// parseTarget is capability.ParseTarget. Its host is a fixed point of
// capability.NormalizeHost (FuzzNormalizeHost proves it; "example.com.."
// is refused as an empty label), so rules, local mode and the dialer read
// the target alike without normalising it a second time.
func parseTarget(hostport string, defaultPort uint16) (capability.Target, error) {
	return capability.ParseTarget(hostport, defaultPort)
}

// invalidHost turns a capability parse error into a refusal. capability's
// errors quote the host only sanitized and cut, so their text is safe.
func invalidHost(err error) *refusal.Error {
	code := refusal.InvalidArguments
	if errors.Is(err, capability.ErrInvalidHost) {
		code = refusal.InvalidHost
	}
	return refusal.Newf(code, "target: %s", err.Error()).
		WithHint("name the target as host:port with a valid host name or IP address").Wrap(err)
}

// hopHeaders are removed from a forwarded request and from its response
// (RFC 9110 §7.6.1), with Proxy-Authorization and Proxy-Authenticate,
// which are for this proxy and must not travel on.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// removeHopHeaders deletes the hop-by-hop headers of h, including every
// header named in its Connection header.
func removeHopHeaders(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// origin is the typed origin the policy decides on: the target with its
// port (a proxy target always names one, written or http's 80), and the
// scheme http for a forwarded request, none for a tunnel.
func (p parsedRequest) origin() capability.Origin {
	o := capability.Origin{Target: p.target, PortWritten: true}
	if p.kind == kindForward {
		o.Scheme = "http"
	}
	return o
}

// hostHeader is the Host header for target: the host, bracketed if IPv6,
// with the port unless it is http's 80.
func hostHeader(t capability.Target) string {
	if t.Port() == 80 {
		return t.HostString()
	}
	return t.String()
}
