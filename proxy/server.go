package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/internal/socks5"
	"github.com/ocfetch/ocfetch/scope"
)

// Defaults for the zero values of [Options].
const (
	DefaultMaxConcurrent    = 256
	DefaultMaxHeaderBytes   = 32 << 10
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 2 * time.Minute
	DefaultDialTimeout      = 15 * time.Second
)

// ErrServerClosed is returned by [Server.Serve] and [Server.ListenAndServe]
// after [Server.Shutdown] or [Server.Close].
var ErrServerClosed = errors.New("proxy: server closed")

// Options configure a [Server]. The zero value of every field but Scope
// is usable.
type Options struct {
	// Scope is the workspace whose rules.json, local_fetch.json and
	// audit.jsonl the proxy uses, its profile and where it came from, and
	// the layers around it (scope.Open builds it; policy.Decide reads every
	// file on every request). Required.
	Scope *scope.Scope

	// Guard dials every upstream connection. If nil, egress.NewGuard(nil)
	// is used: the system resolver, public addresses only.
	Guard *egress.Guard

	// Audit receives one line per tunnel or request. If nil, nothing is
	// audited (the CLI passes audit.Open(ws)).
	Audit *audit.Log

	// Logger receives diagnostics (domain PROXY). If nil, they are
	// discarded.
	Logger *slog.Logger

	// MaxConcurrent caps the connections served at once; a client past the
	// cap gets 503 with X-Ocfetch-Reason: too_many_connections. If 0,
	// [DefaultMaxConcurrent].
	MaxConcurrent int

	// MaxHeaderBytes bounds a request head (request line and headers), and
	// an upstream response head. If 0, [DefaultMaxHeaderBytes].
	MaxHeaderBytes int

	// HandshakeTimeout bounds the time to read a request head. If 0,
	// [DefaultHandshakeTimeout].
	HandshakeTimeout time.Duration

	// IdleTimeout closes a tunnel or a keep-alive connection on which no
	// byte moved in either direction for this long, and bounds the wait
	// for an absolute-form request's response head. If 0,
	// [DefaultIdleTimeout].
	IdleTimeout time.Duration

	// DialTimeout bounds connecting upstream. If 0, [DefaultDialTimeout].
	DialTimeout time.Duration

	// Auth, when set, are the only credentials the proxy serves: an HTTP
	// request or CONNECT without them in Proxy-Authorization: Basic is
	// answered 407, a SOCKS5 client without them gets the RFC 1929
	// failure, and either is audited as proxy_auth_required with nothing
	// forwarded. If nil, every client on loopback is served.
	Auth *Credentials

	// Refused, if set, is called once for every refusal by policy
	// (refusal.Code.Policy) after its audit line is written and before
	// the client is answered, on the connection's goroutine: ocfetch run
	// prints [Refusal.Line] on stderr, and the line comes before anything
	// the client prints about the refusal. It must not block.
	Refused func(Refusal)

	// Ask, when set, puts a target no rule covers to the user instead of
	// refusing it (see [AskOptions]). Nil: the proxy never asks.
	Ask *AskOptions

	// RunID, when set, is written in every audit line (run_id): the id of
	// the `ocfetch run` this proxy serves. A short token (letters, digits,
	// '-', '_', '.').
	RunID string
}

// Server is the egress proxy. Create it with [New]; it is safe for
// concurrent use and serves any number of loopback listeners.
type Server struct {
	scope *scope.Scope
	guard *egress.Guard
	audit *audit.Log
	log   *slog.Logger
	// decideLog is Options.Logger, for policy.Decide (Args.Logger).
	decideLog *slog.Logger
	maxHead   int
	handshake time.Duration
	idle      time.Duration
	dialTO    time.Duration
	auth      *Credentials
	refused   func(Refusal)
	metrics   *metrics // metrics.go
	asker     *asker
	runID     string

	transport *http.Transport
	sem       chan struct{} // one token per connection being served
	refusers  chan struct{} // bounds the goroutines answering 503
	wg        sync.WaitGroup

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*clientConn]struct{}
	closing   atomic.Bool
	done      chan struct{}

	// base is the parent context of every upstream dial and request; Close
	// cancels it.
	base       context.Context
	cancelBase context.CancelFunc

	// now is the clock; tests may replace it.
	now func() time.Time
}

// New returns a server for opts. It does no I/O.
func New(opts *Options) (*Server, error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.Scope == nil || opts.Scope.Workspace.Root == "" {
		return nil, errors.New("proxy: Options.Scope (with its workspace) is required")
	}
	s := &Server{
		scope:     opts.Scope,
		guard:     opts.Guard,
		audit:     opts.Audit,
		log:       opts.Logger,
		maxHead:   orInt(opts.MaxHeaderBytes, DefaultMaxHeaderBytes),
		handshake: orDur(opts.HandshakeTimeout, DefaultHandshakeTimeout),
		idle:      orDur(opts.IdleTimeout, DefaultIdleTimeout),
		dialTO:    orDur(opts.DialTimeout, DefaultDialTimeout),
		auth:      opts.Auth,
		refused:   opts.Refused,
		asker:     newAsker(opts.Ask),
		runID:     opts.RunID,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*clientConn]struct{}{},
		done:      make(chan struct{}),
		now:       time.Now,
	}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	if s.guard == nil {
		s.guard = egress.NewGuard(nil)
	}
	s.decideLog = opts.Logger // policy.Decide's own lines, in their own domain
	s.log = diag.For(s.log, diag.DomainProxy)
	s.sem = make(chan struct{}, orInt(opts.MaxConcurrent, DefaultMaxConcurrent))
	s.metrics = newMetrics(func() float64 { return float64(len(s.sem)) })
	// Enough answers at once for a crowd of four times the cap.
	s.refusers = make(chan struct{}, max(64, 4*cap(s.sem)))
	s.transport = s.newTransport()
	return s, nil
}

func orInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orDur(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}

// ListenAndServe listens on addr, which must be a loopback address with a
// port ("127.0.0.1:8080", "[::1]:0", "localhost:0"), and serves until
// [Server.Shutdown]. A non-loopback address is refused before anything is
// bound, with an error wrapping internal/loopback's ErrNotLoopback (the
// one check of every listener of ocfetch; mcpserver.ErrNotLoopback is the
// same value).
func (s *Server) ListenAndServe(addr string) error {
	ln, err := loopback.Listen(context.Background(), addr)
	if errors.Is(err, loopback.ErrNotLoopback) {
		return err
	}
	if err != nil {
		return fmt.Errorf("proxy: listen %s: %w", addr, err)
	}
	return s.Serve(ln)
}

// Serve accepts connections on ln until [Server.Shutdown] or [Server.Close],
// then returns [ErrServerClosed]. ln must be bound to a loopback address;
// otherwise Serve closes it and returns an error wrapping ErrNotLoopback
// (see [Server.ListenAndServe]).
func (s *Server) Serve(ln net.Listener) error {
	if !loopback.IsAddr(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w: %s", loopback.ErrNotLoopback, ln.Addr())
	}
	if !s.trackListener(ln, true) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.trackListener(ln, false)
	s.log.Info("proxy listening", "addr", ln.Addr().String())

	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return ErrServerClosed
			}
			if retryableAccept(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed; retrying", "err", err, "backoff", backoff)
				time.Sleep(backoff)
				continue
			}
			return fmt.Errorf("proxy: accept: %w", err)
		}
		backoff = 0
		if !s.acquireSlot() {
			s.refuseBusy(c)
			continue
		}
		cc := s.newClientConn(c)
		if cc == nil { // shutting down
			<-s.sem
			c.Close()
			continue
		}
		s.wg.Add(1)
		go s.serveConn(cc)
	}
}

// acquireSlot takes a connection slot for a newly accepted client. When
// every slot is taken, the oldest connection still in its handshake (not
// yet authenticated: it holds a slot without having proved anything) is
// closed to make room, and the new client waits up to slotWait for the
// slot it frees. So clients without the credentials, however many, cannot
// keep a client with them out: they can only displace each other. It
// reports false when no slot could be had (every slot is serving an
// authenticated client): the caller answers 503.
func (s *Server) acquireSlot() bool {
	select {
	case s.sem <- struct{}{}:
		return true
	default:
	}
	if s.auth == nil || !s.evictOldestHandshake() {
		// Without authentication every client is alike: none is evicted
		// for another, and the new one is answered 503.
		return false
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case s.sem <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// slotWait is how long a new client waits for the slot an eviction frees.
const slotWait = 100 * time.Millisecond

// evictAge is how long a connection must have been in its handshake to be
// evicted: a real client sends its request (or SOCKS greeting and
// credentials) within milliseconds, so one still silent after a second is
// holding its slot, and one that young is left to finish.
const evictAge = time.Second

// evictOldestHandshake closes the connection that has been in its
// handshake longest, if that is at least evictAge, and reports whether
// there was one.
func (s *Server) evictOldestHandshake() bool {
	s.mu.Lock()
	var oldest *clientConn
	for cc := range s.conns {
		if cc.handshaking.Load() && (oldest == nil || cc.accepted.Before(oldest.accepted)) {
			oldest = cc
		}
	}
	s.mu.Unlock()
	if oldest == nil || s.now().Sub(oldest.accepted) < evictAge {
		return false
	}
	if !oldest.handshaking.CompareAndSwap(true, false) {
		return false // it authenticated meanwhile: it keeps its slot
	}
	s.log.Log(context.Background(), diag.L2, "connection limit reached: closing the oldest unauthenticated connection", "age", s.now().Sub(oldest.accepted).String())
	oldest.close()
	return true
}

// retryableAccept reports whether an accept error is one after which the
// loop should back off and retry: running out of descriptors or buffers, or
// a connection aborted before it was accepted.
func retryableAccept(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM) ||
		errors.Is(err, syscall.ECONNABORTED)
}

func (s *Server) trackListener(ln net.Listener, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.closing.Load() {
			return false
		}
		s.listeners[ln] = struct{}{}
	} else {
		delete(s.listeners, ln)
	}
	return true
}

// connection states, for Shutdown: an idle connection is waiting for a
// request and may be closed at once; an active one is given until the
// Shutdown context ends.
const (
	stateIdle int32 = iota
	stateActive
)

// clientConn is one accepted connection.
type clientConn struct {
	c     net.Conn
	head  *headLimitReader
	br    *bufio.Reader
	bw    *bufio.Writer
	state atomic.Int32
	// lentReader is set when a request body reading from br went to the
	// upstream transport (forward): br is then not recycled.
	lentReader bool

	mu       sync.Mutex
	upstream net.Conn // the tunnel's upstream, closed with c on force close
	closed   bool

	// accepted is when the connection was accepted; handshaking is true
	// until it has authenticated (or, without authentication, sent its
	// first request), so that [Server.acquireSlot] can tell a client
	// that is still to prove itself from one being served.
	accepted    time.Time
	handshaking atomic.Bool
}

// connReaders and connWriters recycle the 4 KiB buffers of a client
// connection (two of the three allocations of a small exchange's 11 KB),
// see clientConn.release.
var (
	connReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}
	connWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4<<10) }}
)

func (s *Server) newClientConn(c net.Conn) *clientConn {
	head := &headLimitReader{r: c}
	br := connReaders.Get().(*bufio.Reader)
	br.Reset(head)
	bw := connWriters.Get().(*bufio.Writer)
	bw.Reset(&deadlineWriter{c: c, idle: s.idle, now: s.now})
	cc := &clientConn{c: c, head: head, br: br, bw: bw, accepted: s.now()}
	cc.handshaking.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		cc.release()
		return nil
	}
	s.conns[cc] = struct{}{}
	return cc
}

// release returns cc's buffers to the pools, once the goroutine serving
// cc is done with them: when it stops serving cc, or when a tunnel starts
// relaying (after which nothing reads or writes through them). The
// reader is kept out when a request body read through it was handed to
// the upstream transport (lentReader): the transport may still be
// reading that body after the exchange. A second call does nothing.
func (cc *clientConn) release() {
	if cc.bw == nil {
		return
	}
	cc.bw.Reset(nil)
	connWriters.Put(cc.bw)
	if !cc.lentReader {
		cc.br.Reset(nil)
		connReaders.Put(cc.br)
	}
	cc.br, cc.bw = nil, nil
}

// setUpstream records the tunnel's upstream; it reports false (and the
// caller must close up) when the connection was force-closed meanwhile.
func (cc *clientConn) setUpstream(up net.Conn) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed {
		return false
	}
	cc.upstream = up
	return true
}

// close closes the client connection and the tunnel's upstream, if any. It
// is safe to call more than once and from any goroutine.
// isClosed reports whether cc was closed (by its own end, a shutdown, or
// an eviction).
func (cc *clientConn) isClosed() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.closed
}

func (cc *clientConn) close() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed {
		return
	}
	cc.closed = true
	cc.c.Close()
	if cc.upstream != nil {
		cc.upstream.Close()
	}
}

// Shutdown stops the server: it closes every listener and every
// connection waiting for a request at once, then waits for active tunnels
// and requests to finish until ctx is done, when it closes them too. It
// returns once every connection goroutine has exited: ctx.Err() if it had
// to force them, else nil.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginClose()
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for {
		if s.closeIdle() == 0 {
			s.wg.Wait()
			s.transport.CloseIdleConnections()
			return nil
		}
		select {
		case <-ctx.Done():
			s.Close()
			return ctx.Err()
		case <-ticker.C:
		}
	}
}

// Close closes every listener and connection at once and waits for their
// goroutines to exit.
func (s *Server) Close() error {
	s.beginClose()
	s.cancelBase()
	s.mu.Lock()
	for cc := range s.conns {
		cc.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.transport.CloseIdleConnections()
	return nil
}

func (s *Server) beginClose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Swap(true) {
		return
	}
	close(s.done)
	for ln := range s.listeners {
		ln.Close()
	}
}

// closeIdle closes the connections waiting for a request and returns how
// many connections remain.
func (s *Server) closeIdle() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for cc := range s.conns {
		if cc.state.Load() == stateIdle {
			cc.close()
		}
	}
	return len(s.conns)
}

func (s *Server) forget(cc *clientConn) {
	s.mu.Lock()
	delete(s.conns, cc)
	s.mu.Unlock()
}

// refuseBusy answers a connection past MaxConcurrent with 503
// too_many_connections (a SOCKS5 client with its general-failure reply),
// never with a bare close: see [Server.answerBusy]. Up to cap(s.refusers)
// answers run on goroutines of their own, which read what the client sends
// first (bounded in time and size) so that the client, still writing, sees
// the answer rather than a reset. Past that the accept loop answers
// inline, reading only what has already arrived: under a flood the loop
// slows to the pace of those answers, and new clients wait in the listen
// backlog rather than being dropped.
func (s *Server) refuseBusy(c net.Conn) {
	select {
	case s.refusers <- struct{}{}:
	default:
		s.answerBusy(c, busyInlineWait)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.refusers }()
		s.answerBusy(c, min(s.handshake, time.Second))
	}()
}

// busyInlineWait is how long the accept loop waits for a refused client's
// first bytes when every refuser goroutine is busy.
const busyInlineWait = 2 * time.Millisecond

// answerBusy reads the client's request head (HTTP) or greeting and
// request (SOCKS5) for at most wait, answers it busy, and closes c.
func (s *Server) answerBusy(c net.Conn, wait time.Duration) {
	defer c.Close()
	c.SetDeadline(s.now().Add(wait))
	head := &headLimitReader{r: c, n: int64(s.maxHead)}
	br := bufio.NewReaderSize(head, 4<<10)
	bw := bufio.NewWriterSize(c, 512)
	if b, err := br.Peek(1); err == nil && b[0] == socks5.Version {
		s.socksBusy(c, br, bw)
		return
	}
	method := ""
	if req, err := http.ReadRequest(br); err == nil {
		method = req.Method
	}
	c.SetWriteDeadline(s.now().Add(time.Second))
	writeRefusal(bw, http.StatusServiceUnavailable, tooManyConnections(cap(s.sem)))
	bw.Flush()
	s.log.Warn("connection refused: too many connections", "limit", cap(s.sem), "method", sanitizeMethod(method))
}

// socksBusy answers a SOCKS5 client past the cap: it completes the
// greeting (and checks the credentials, answering a wrong pair as any
// other), then replies general failure to the request. Nothing is dialled.
func (s *Server) socksBusy(c net.Conn, br *bufio.Reader, bw *bufio.Writer) {
	c.SetWriteDeadline(s.now().Add(time.Second))
	methods, err := socks5.ReadGreeting(br)
	if err != nil {
		return
	}
	method := socks5.ChooseMethod(methods, s.auth != nil)
	bw.Write([]byte{socks5.Version, method})
	if bw.Flush() != nil || method == socks5.MethodNoAcceptable {
		return
	}
	if method == socks5.MethodUserPass {
		user, pass, err := socks5.ReadUserPass(br)
		if err != nil {
			return
		}
		if s.auth != nil && !s.auth.match(user, pass) {
			bw.Write([]byte{socks5.AuthVersion, socks5.AuthFailed})
			bw.Flush()
			return
		}
		bw.Write([]byte{socks5.AuthVersion, socks5.AuthOK})
		if bw.Flush() != nil {
			return
		}
	}
	socks5.ReadRequest(br)
	bw.Write(socks5.Reply(socks5.GeneralFailure))
	bw.Flush()
	s.log.Warn("SOCKS5 connection refused: too many connections", "limit", cap(s.sem))
}
