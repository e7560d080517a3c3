package egress

import (
	"context"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Resolver resolves a host name to addresses. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc connects to address on network; it has the shape of
// net.Dialer.DialContext. The guard only ever gives it a checked literal
// "ip:port" ("93.184.216.34:443", "[2606:4700::1111]:443"), never a name.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Defaults for the zero values of [Options].
const (
	DefaultTimeout                = 30 * time.Second
	DefaultMaxResponseHeaderBytes = 64 << 10
)

// Options configures [NewGuard] and [NewClient]. A nil *Options is the same
// as a zero Options.
type Options struct {
	// Resolver resolves host names. If nil, net.DefaultResolver is used.
	// Whatever it answers is checked: the resolver is not trusted.
	Resolver Resolver

	// Dial connects to a checked literal address. If nil, a net.Dialer is
	// used whose Control function re-checks the exact address being
	// connected to, just before connect(2): only a public address, or the
	// loopback address and port that local mode admitted for this dial,
	// gets through. A custom Dial is trusted to connect to the address it
	// is given; it does not get that second check.
	Dial DialFunc

	// Timeout bounds one request of the client made by NewClient (its
	// http.Client.Timeout and the transport's response header timeout) and
	// one connection attempt of the default dialer. Zero means
	// DefaultTimeout (30s).
	Timeout time.Duration

	// RootCAs are the certificate authorities NewClient's client trusts.
	// If nil, the system roots are used.
	RootCAs *x509.CertPool

	// MaxResponseHeaderBytes bounds the response header NewClient's client
	// reads. Zero means DefaultMaxResponseHeaderBytes (64 KiB).
	MaxResponseHeaderBytes int64

	// Upstream, if set, is the operator's HTTP proxy: every public
	// connection becomes a CONNECT tunnel through it to the checked
	// address ([UpstreamProxy]). Local mode's loopback dials never use it.
	// If nil, the checked address is dialed directly.
	Upstream *UpstreamProxy

	// Logger receives one debug line (diag level L2, domain EGRESS) per
	// dial decision: host, address, decision, and the reason code of a
	// refusal; never a URL path. If nil, nothing is logged.
	Logger *slog.Logger
}

func (o *Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// Guard is the dial-time egress check. Its DialContext is the DialContext of
// the transport NewClient builds and of the egress proxy's upstream
// connections. A Guard is safe for concurrent use. The zero Guard is not
// usable: make one with NewGuard.
type Guard struct {
	resolver Resolver
	dial     DialFunc
	// localDial dials local mode's admitted loopback addresses: the
	// default dialer without TCP keep-alive, which on loopback detects
	// nothing the kernel does not report at once and costs four
	// setsockopt(2) per connection. Nil with a custom Dial (which then
	// dials those too).
	localDial DialFunc
	upstream  *upstreamDialer // nil: dial directly
	logger    *slog.Logger
}

// NewGuard returns a Guard configured by opts (nil means all defaults).
// Only Resolver, Dial, Timeout, Upstream (with RootCAs for an https
// upstream proxy) and Logger matter to a Guard.
func NewGuard(opts *Options) *Guard {
	var o Options
	if opts != nil {
		o = *opts
	}
	g := &Guard{resolver: o.Resolver, dial: o.Dial, logger: o.Logger}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	if g.dial == nil {
		d := &net.Dialer{
			Timeout:        o.timeout(),
			KeepAlive:      30 * time.Second,
			ControlContext: ControlContext,
		}
		g.dial = d.DialContext
		ld := *d
		ld.KeepAlive = -1
		g.localDial = ld.DialContext
	}
	if o.Upstream != nil {
		g.upstream = newUpstreamDialer(o.Upstream, o.timeout(), o.RootCAs)
	}
	return g
}

// DialContext connects to address ("host:port") on network, which must be
// tcp, tcp4 or tcp6, if and only if the egress policy allows it:
//
//   - The host is normalised with capability.NormalizeHost (unless it is
//     the target ctx carries, [WithTarget], normalised already); an invalid
//     host is refused (invalid_host).
//   - If ctx carries local mode's admission ([WithLoopback]) for this host
//     (localhost, 127.0.0.1 or ::1) and port, the loopback address written
//     is dialed: 127.0.0.1 only, ::1 only, or for localhost 127.0.0.1 then
//     ::1; no DNS is asked.
//   - Otherwise an IP literal must be public ([CheckPublic]), and a name is
//     resolved with the Resolver and EVERY address it answers must be
//     public: one non-public answer refuses the name (address_not_public,
//     naming that answer). "localhost" and names under it are refused
//     without asking DNS. Then the answers are dialed in order, as literal
//     "ip:port", keeping only IPv4 for tcp4 and only IPv6 for tcp6.
//
// Refusals and failures are *refusal.Error: address_not_public,
// invalid_host, invalid_arguments (network, port), connection_failed (a
// name that cannot be resolved: "cannot resolve HOST"; no address could be
// connected: the dial errors wrapped), timeout (ctx's deadline passed, or
// every attempt timed out).
// Messages name the host and port, never a URL.
func (g *Guard) DialContext(ctx context.Context, network, address string) (conn net.Conn, err error) {
	host, addr, local := "", "", false
	defer func() { g.log(ctx, host, addr, local, err) }()

	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, refusal.Newf(refusal.InvalidArguments, "network %s is not allowed", strconv.Quote(safetext.Short(network))).
			WithHint("the egress guard dials tcp only")
	}
	rawHost, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, refusal.Newf(refusal.InvalidHost, "%s is not host:port", strconv.Quote(safetext.Short(address))).Wrap(err)
	}
	port, err := capability.ParsePort(portStr)
	if err != nil {
		return nil, refusal.New(refusal.InvalidArguments, err.Error()).Wrap(err)
	}
	host, err = normalizedHost(ctx, rawHost, port)
	if err != nil {
		host = safetext.Short(rawHost)
		return nil, refusal.New(refusal.InvalidHost, err.Error()).Wrap(err)
	}

	if addrs := admittedLoopback(ctx, host, port); addrs != nil {
		local = true
		conn, addr, err = g.dialAll(ctx, network, host, port, addrs, true)
		return conn, err
	}

	if ip, perr := netip.ParseAddr(host); perr == nil {
		if err := CheckPublic(ip); err != nil {
			addr = netip.AddrPortFrom(ip, port).String()
			return nil, err
		}
		conn, addr, err = g.dialAll(ctx, network, host, port, []netip.Addr{ip}, false)
		return conn, err
	}

	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return nil, refusal.Newf(refusal.AddressNotPublic, "%s is a loopback name (RFC 6761)", host).WithHints(publicHint, publicModelHint)
	}
	ips, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		if err == nil {
			err = errors.New("no addresses")
		}
		return nil, failure(ctx, false, "cannot resolve "+host, "resolving "+host+" timed out").Wrap(err)
	}
	for _, ip := range ips {
		if r, bad := NonPublicRange(ip); bad {
			addr = netip.AddrPortFrom(ip, port).String()
			which := safetext.Short(ip.String())
			if len(ips) > 1 {
				which += " (1 of " + strconv.Itoa(len(ips)) + " addresses)"
			}
			e := refusal.Newf(refusal.AddressNotPublic, "%s resolves to %s, which is %s", host, which, describe(r))
			e = e.WithHints(publicHint, publicModelHint)
			return nil, e
		}
	}
	conn, addr, err = g.dialAll(ctx, network, host, port, ips, false)
	return conn, err
}

// dialAll dials the addresses that suit network, in order, until one
// connects. admitted marks local mode's loopback addresses, which the
// default dialer's Control lets through for this dial only.
func (g *Guard) dialAll(ctx context.Context, network, host string, port uint16, ips []netip.Addr, admitted bool) (net.Conn, string, error) {
	var cands []netip.AddrPort
	for _, ip := range ips {
		ip = ip.Unmap()
		if (network == "tcp4" && !ip.Is4()) || (network == "tcp6" && !ip.Is6()) {
			continue
		}
		cands = append(cands, netip.AddrPortFrom(ip, port))
	}
	hostport := net.JoinHostPort(host, strconv.Itoa(int(port)))
	if len(cands) == 0 {
		fam := "IPv4"
		if network == "tcp6" {
			fam = "IPv6"
		}
		return nil, "", refusal.Newf(refusal.ConnectionFailed, "%s has no %s address", host, fam)
	}
	var errs []error
	last := ""
	for i, ap := range cands {
		last = ap.String()
		dctx, cancel := attemptContext(ctx, len(cands)-i)
		dctx = withDialing(dctx, last, ap, admitted)
		conn, err := g.dialOne(dctx, network, host, last, admitted)
		cancel()
		if err == nil {
			return conn, last, nil
		}
		if r, ok := refusal.As(err); ok && (r.Code == refusal.AddressNotPublic || errors.Is(err, errProxyHop)) {
			// The Control check refused the connected address, or the
			// upstream proxy cannot be used: no other address helps.
			return nil, last, r
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if r, ok := refusal.As(errs[len(errs)-1]); ok && g.upstream != nil && !admitted && !g.upstream.excluded(host) {
		return nil, last, r // the upstream proxy's answer names what went wrong
	}
	return nil, last, failure(ctx, allTimeouts(errs), "cannot connect to "+hostport, "connecting to "+hostport+" timed out").Wrap(errors.Join(errs...))
}

// allTimeouts reports whether every error is a network timeout (the
// default dialer's own Timeout, a per-attempt share of the deadline).
func allTimeouts(errs []error) bool {
	for _, err := range errs {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return false
		}
	}
	return len(errs) > 0
}

// attemptContext gives one of n remaining connection attempts its share of
// ctx's deadline (at least 2s), as net.Dialer does for a name with several
// addresses, so one unresponsive address cannot use up the whole deadline.
func attemptContext(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return ctx, func() {}
	}
	share := time.Until(deadline) / time.Duration(n)
	if share < 2*time.Second {
		share = 2 * time.Second
	}
	return context.WithTimeout(ctx, share)
}

// failure returns connection_failed with msg, or timeout with timeoutMsg
// when ctx's deadline has passed or timedOut says the failure was one.
func failure(ctx context.Context, timedOut bool, msg, timeoutMsg string) *refusal.Error {
	if timedOut || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return refusal.New(refusal.Timeout, timeoutMsg).WithHint("raise the timeout or try again later")
	}
	return refusal.New(refusal.ConnectionFailed, msg)
}

// log writes the one line of a dial decision: decision is "allow",
// "allow_local" (local mode's loopback port), "refuse" (policy) or "fail"
// (resolution, connection, timeout).
func (g *Guard) log(ctx context.Context, host, addr string, local bool, err error) {
	decision, code := "allow", ""
	if local {
		decision = "allow_local"
	}
	if err != nil {
		decision, code = "fail", string(refusal.CodeOf(err))
		if refusal.Code(code).Policy() {
			decision = "refuse"
		}
	}
	// slog.LevelDebug is diag.L2; "EGRESS" is diag.DomainEgress (egress
	// does not import diag: it sits below it).
	g.logger.LogAttrs(ctx, slog.LevelDebug, "egress dial",
		slog.String("domain", "EGRESS"),
		slog.String("host", host),
		slog.String("addr", addr),
		slog.String("decision", decision),
		slog.String("code", code))
}
