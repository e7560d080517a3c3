package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/ocfetch/ocfetch/safetext"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/secretfile"
	"github.com/ocfetch/ocfetch/refusal"
)

// UpstreamProxy is the operator's HTTP proxy (a corporate proxy) that every
// public connection of a [Guard] goes through. The Guard still resolves and
// checks the target first; it then asks the proxy for a CONNECT tunnel to
// the checked literal address ("93.184.216.34:443"), never to the name, so
// a name that resolves to a non-public address is refused before anything
// is sent to the proxy, and the proxy cannot pick another address for it.
// TLS runs end to end inside the tunnel: the SNI and the Host header carry
// the name, and the certificate is verified for it.
//
// Local mode's loopback dials never use the upstream proxy.
//
// What the proxy sees: the checked address and port of every connection,
// the TLS SNI name (in clear text in the ClientHello), the timing and sizes
// of the traffic, and the credentials below. It does not see the path,
// query, headers or body of an https request.
type UpstreamProxy struct {
	// Addr is the proxy's "host:port": a name, an IPv4 literal or a
	// bracketed IPv6 literal. It may be loopback or private: the proxy is
	// the operator's choice, and it is dialed without the guard's public
	// check (the proxy hop only).
	Addr string

	// Username and Password, when Username is not empty, are sent to the
	// proxy as Proxy-Authorization: Basic. They are never logged.
	Username, Password string

	// Dial connects to Addr. If nil, a net.Dialer with the Options'
	// Timeout is used.
	Dial DialFunc

	// Exclude are the hosts dialled directly instead of through the proxy
	// (NO_PROXY for ocfetch: settings.json's upstream_proxy_exclude,
	// --upstream-proxy-exclude), parsed by [ParseUpstreamExclude]: an
	// exact host or IP literal, or "*.example.com" for every subdomain
	// (not the apex). An excluded host is decided, resolved and checked
	// exactly as any other — every answer public, the connected address
	// checked again by the default dialer — and only then dialled without
	// the proxy. nil: every public connection goes through the proxy.
	Exclude []capability.HostPattern

	// TLS makes the hop to the proxy itself TLS (an https:// proxy URL):
	// the proxy's certificate is verified for Addr's host against the
	// Guard's Options.RootCAs (nil: the system roots; --ca-file adds to
	// them), TLS 1.2 at least, before CONNECT and the credentials are
	// sent. The tunnel inside carries the target's own TLS, end to end.
	TLS bool
}

// Errors of the upstream proxy configuration, wrapped with what is wrong.
var (
	// ErrUpstreamProxyURL: the --upstream-proxy value is not http://HOST:PORT.
	ErrUpstreamProxyURL = errors.New("invalid upstream proxy URL")
	// ErrProxyAuthFile: the credentials file cannot be used.
	ErrProxyAuthFile = errors.New("invalid upstream proxy credentials file")
	// ErrUpstreamExclude: an entry of the exclusion list is not a host
	// or "*.domain".
	ErrUpstreamExclude = errors.New("invalid upstream proxy exclusion")
)

// MaxUpstreamExclude bounds the exclusion list.
const MaxUpstreamExclude = 256

// ParseUpstreamExclude parses the hosts to dial directly, bypassing the
// upstream proxy ([UpstreamProxy.Exclude]). Each entry is a host name or
// IP literal, matched exactly after normalisation (IDNA, lower case), or
// "*.example.com", every subdomain of example.com at any depth but not
// example.com itself — the host patterns of rules (capability.
// ParseHostPattern: no wildcard over a public suffix). Refused, wrapping
// [ErrUpstreamExclude] and naming the entry: an empty entry, "*", a port,
// a scheme or path, a CIDR, ".example.com" (write "*.example.com"), more
// than [MaxUpstreamExclude] entries. Duplicates collapse.
func ParseUpstreamExclude(entries []string) ([]capability.HostPattern, error) {
	if len(entries) > MaxUpstreamExclude {
		return nil, fmt.Errorf("%w: %d entries; at most %d", ErrUpstreamExclude, len(entries), MaxUpstreamExclude)
	}
	var out []capability.HostPattern
	for i, e := range entries {
		bad := func(why string) error {
			return fmt.Errorf("%w: entry %d %s: %s", ErrUpstreamExclude, i+1, strconv.Quote(safetext.Short(e)), why)
		}
		switch {
		case strings.TrimSpace(e) == "":
			return nil, bad("empty; write a host (intranet.example.com) or *.domain (*.corp.example)")
		case e == "*":
			return nil, bad("every host; to use no upstream proxy, drop upstream_proxy (or pass --upstream-proxy none)")
		case strings.HasPrefix(e, "."):
			return nil, bad("write *" + safetext.Short(e) + " for its subdomains (and the bare name for the apex)")
		case strings.Contains(e, "/"):
			return nil, bad("a host only: no scheme, path or CIDR")
		case strings.HasPrefix(e, "[") || strings.Count(e, ":") == 1:
			return nil, bad("a host only, without a port (every port of the host is dialled directly)")
		}
		p, err := capability.ParseHostPattern(e)
		if err != nil {
			return nil, bad(err.Error())
		}
		dup := false
		for _, q := range out {
			dup = dup || q == p
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out, nil
}

// excluded reports whether host (normalised) is dialled without the
// proxy.
func (u *upstreamDialer) excluded(host string) bool {
	for _, p := range u.exclude {
		if p.Match(host) {
			return true
		}
	}
	return false
}

// maxProxyAuthFile bounds the credentials file: one "user:pass" line.
const maxProxyAuthFile = 4 << 10

// maxConnectResponse bounds the proxy's answer to CONNECT (status line and
// headers).
const maxConnectResponse = 16 << 10

// ParseUpstreamProxy parses an upstream proxy URL, http://HOST:PORT or
// https://HOST:PORT (TLS to the proxy: [UpstreamProxy.TLS]), a trailing
// "/" allowed. The port must be explicit; other schemes, credentials in
// the URL (use [ReadProxyAuthFile]), a path, a query or a fragment are
// refused with an error wrapping [ErrUpstreamProxyURL]. The error never
// repeats the URL's userinfo.
func ParseUpstreamProxy(raw string) (*UpstreamProxy, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s; write http://HOST:PORT", ErrUpstreamProxyURL, fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(raw) == "" {
		return nil, bad("the URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, bad("it cannot be parsed")
	}
	switch {
	case u.Scheme == "":
		return nil, bad("the scheme is missing")
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return nil, bad("scheme %s is not supported", strconv.Quote(safetext.Short(u.Scheme)))
	case u.User != nil:
		return nil, bad("credentials in the URL are not accepted (put user:pass in a file for --upstream-proxy-auth)")
	case u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, bad("a path, query or fragment is not accepted")
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return nil, bad("the host is missing")
	}
	if port == "" {
		return nil, bad("the port is missing")
	}
	if _, err := capability.ParsePort(port); err != nil {
		return nil, bad("%v", err)
	}
	norm, err := capability.NormalizeHost(host)
	if err != nil {
		return nil, bad("%v", err)
	}
	return &UpstreamProxy{Addr: net.JoinHostPort(norm, port), TLS: strings.EqualFold(u.Scheme, "https")}, nil
}

// ReadProxyAuthFile reads upstream proxy credentials from path: one line
// "user:pass" (a final newline allowed), at most 4 KiB, from a regular
// file (a FIFO, a device or a directory is refused without blocking),
// without a byte order mark (Notepad's "UTF-8 with BOM" is refused by
// name rather than sent as part of the user name).
// Errors wrap [ErrProxyAuthFile] and name the file, never its content.
func ReadProxyAuthFile(path string) (username, password string, err error) {
	data, err := readRegularFile(path, maxProxyAuthFile)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrProxyAuthFile, err)
	}
	if err := secretfile.CheckNoBOM(data); err != nil {
		return "", "", fmt.Errorf("%w: %s %v", ErrProxyAuthFile, path, err)
	}
	line := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	user, pass, ok := strings.Cut(line, ":")
	switch {
	case !ok || user == "":
		return "", "", fmt.Errorf("%w: %s: want one line user:pass", ErrProxyAuthFile, path)
	case strings.ContainsAny(line, "\r\n\x00"):
		return "", "", fmt.Errorf("%w: %s: want one line user:pass, without control characters", ErrProxyAuthFile, path)
	}
	return user, pass, nil
}

// errProxyHop marks a failure that no other candidate address can cure:
// the upstream proxy cannot be reached, or wants other credentials.
var errProxyHop = errors.New("upstream proxy failure")

// upstreamDialer opens CONNECT tunnels through an [UpstreamProxy].
type upstreamDialer struct {
	exclude []capability.HostPattern
	addr    string
	auth    string // the Proxy-Authorization value, or ""
	dial    DialFunc
	timeout time.Duration
	tls     *tls.Config // nil: plain TCP to the proxy
}

func newUpstreamDialer(p *UpstreamProxy, timeout time.Duration, roots *x509.CertPool) *upstreamDialer {
	u := &upstreamDialer{addr: p.Addr, dial: p.Dial, timeout: timeout, exclude: slices.Clone(p.Exclude)}
	if p.TLS {
		host, _, _ := net.SplitHostPort(p.Addr)
		u.tls = &tls.Config{ServerName: host, RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	if p.Username != "" {
		u.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(p.Username+":"+p.Password))
	}
	if u.dial == nil {
		// No Control check: the proxy's own address is the operator's
		// choice. Only this hop is dialed this way.
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
		u.dial = d.DialContext
	}
	return u
}

// dialOne connects to one checked literal address of host: through the
// upstream proxy when there is one, the address is not local mode's
// admitted loopback address and host is not excluded from the proxy;
// else directly (the default dialer checking the connected address).
func (g *Guard) dialOne(ctx context.Context, network, host, address string, admitted bool) (net.Conn, error) {
	if admitted && g.localDial != nil {
		return g.localDial(ctx, network, address)
	}
	if g.upstream == nil || admitted || g.upstream.excluded(host) {
		return g.dial(ctx, network, address)
	}
	return g.upstream.connect(ctx, address)
}

// connect asks the proxy for a tunnel to target, a checked literal
// "ip:port", and returns the tunnel. Failures are *refusal.Error:
// connection_failed (the proxy cannot be reached: wraps errProxyHop; the
// proxy answered CONNECT with another status than 2xx), proxy_auth_required
// (407: wraps errProxyHop), timeout, cancelled (ctx was cancelled).
func (u *upstreamDialer) connect(ctx context.Context, target string) (net.Conn, error) {
	conn, err := u.dial(ctx, "tcp", u.addr)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, refusal.New(refusal.Cancelled, "the call was cancelled while connecting to the upstream proxy "+u.addr).
				Wrap(errors.Join(errProxyHop, err))
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
			return nil, refusal.Newf(refusal.Timeout, "connecting to the upstream proxy %s timed out", u.addr).
				WithHints("check --upstream-proxy, or raise the timeout", upstreamModelHint("did not answer in time")).Wrap(errors.Join(errProxyHop, err))
		}
		msg := "cannot connect to the upstream proxy " + u.addr
		if c := FailureCause(err); c != "" {
			msg += ": " + string(c)
		}
		return nil, refusal.New(refusal.ConnectionFailed, msg).
			WithHints("check --upstream-proxy (or upstream_proxy in settings.json): is the proxy running at "+u.addr+"?", upstreamModelHint("is not reachable")).
			Wrap(errors.Join(errProxyHop, err))
	}
	if u.tls != nil {
		tc := tls.Client(conn, u.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, refusal.Newf(refusal.TLSError, "the TLS handshake with the upstream proxy %s failed (certificate or protocol)", u.addr).
				WithHints("the proxy's certificate must be valid for its host name; give its CA with --ca-file PEM", upstreamModelHint("has a certificate that is not trusted")).
				Wrap(errors.Join(errProxyHop, err))
		}
		conn = tc
	}
	tunnel, err := u.handshake(ctx, conn, target)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return tunnel, nil
}

// handshake sends CONNECT target on conn and reads the proxy's answer,
// bounded in bytes and by ctx's deadline (else the dialer's timeout); a
// cancelled ctx ends the wait.
func (u *upstreamDialer) handshake(ctx context.Context, conn net.Conn, target string) (net.Conn, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(u.timeout)
	}
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	// done ends the wait on ctx before the tunnel is handed over, so that
	// a cancellation after this point cannot set a deadline on it.
	done := func() error {
		if !stop() {
			return ctx.Err()
		}
		return nil
	}

	var req bytes.Buffer
	req.WriteString("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n")
	if u.auth != "" {
		req.WriteString("Proxy-Authorization: " + u.auth + "\r\n")
	}
	req.WriteString("\r\n")
	fail := func(err error) error {
		if errors.Is(ctx.Err(), context.Canceled) {
			return refusal.New(refusal.Cancelled, "the call was cancelled while the upstream proxy "+u.addr+" opened the tunnel").Wrap(err)
		}
		if ctx.Err() != nil || isTimeout(err) {
			return refusal.Newf(refusal.Timeout, "the upstream proxy %s did not open a tunnel to %s in time", u.addr, target).
				WithHints("check --upstream-proxy, or raise the timeout", upstreamModelHint("did not open the tunnel in time")).Wrap(err)
		}
		return refusal.Newf(refusal.ConnectionFailed, "the upstream proxy %s closed the connection instead of opening a tunnel to %s", u.addr, target).
			Wrap(err)
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		return nil, fail(err)
	}
	br := bufio.NewReaderSize(&limitedReader{r: conn, n: maxConnectResponse}, 4<<10)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, fail(err)
	}
	resp.Body.Close() // a CONNECT answer's body is not read: the connection is closed on failure
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired:
		hint, forModel := "give the proxy's credentials with --upstream-proxy-auth FILE (one line user:pass)", upstreamModelHint("wants credentials it was not given")
		if u.auth != "" {
			hint, forModel = "the credentials of --upstream-proxy-auth were not accepted; check the file", upstreamModelHint("did not accept its credentials")
		}
		return nil, refusal.Newf(refusal.ProxyAuthRequired, "the upstream proxy %s wants credentials (407)", u.addr).
			WithHints(hint, forModel).Wrap(errProxyHop)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, refusal.Newf(refusal.ConnectionFailed, "the upstream proxy %s answered %d %s to CONNECT %s",
			u.addr, resp.StatusCode, http.StatusText(resp.StatusCode), target).
			WithHints("the proxy would not open the tunnel; ask its operator, or try without --upstream-proxy", upstreamModelHint("would not open the tunnel"))
	}
	if err := done(); err != nil {
		return nil, fail(err)
	}
	conn.SetDeadline(time.Time{})
	if n := br.Buffered(); n > 0 {
		// Bytes of the target's side arrived with the answer: keep them.
		b, _ := br.Peek(n)
		return &prefixConn{Conn: conn, prefix: bytes.Clone(b)}, nil
	}
	return conn, nil
}

// limitedReader fails once n bytes were read, so a proxy that sends an
// endless header costs at most n bytes.
type limitedReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

var errConnectResponseTooLarge = errors.New("the proxy's answer to CONNECT is too large")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errConnectResponseTooLarge
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// prefixConn is a net.Conn whose first reads return prefix.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
