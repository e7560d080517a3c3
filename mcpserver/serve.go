package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"golang.org/x/net/netutil"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/internal/mcpstdio"
)

func logger(opts *Options) *slog.Logger {
	if opts.Logger != nil {
		return opts.Logger
	}
	return diag.Discard()
}

// ErrNotLoopback is returned by [Serve] for an HTTP address or listener
// that is not a loopback address: the streamable HTTP transport is only
// ever offered to this machine. It is internal/loopback's, the one check
// of every listener of ocfetch (the proxy's errors wrap it too).
var ErrNotLoopback = loopback.ErrNotLoopback

// MaxHTTPRequestBytes bounds one HTTP request body of the streamable
// transport, as the stdio transport bounds a line (16 MiB): oversized tool
// arguments then reach the tool and get an error result like on stdio.
const MaxHTTPRequestBytes = mcp.DefaultMaxLineLength

// MaxLineBytes bounds one line of the stdio transport (one JSON-RPC message
// without its newline), as [MaxHTTPRequestBytes] bounds an HTTP body.
const MaxLineBytes = MaxHTTPRequestBytes

// MaxStdioPending bounds the requests of the stdio transport read and not
// yet answered, their answers written: a request beyond it gets a JSON-RPC
// server error (-32000) written before the next line is read, so that a
// client that stops reading stdout while it sends on makes the server stop
// reading stdin, instead of holding every request (a goroutine and its
// arguments) until the client reads again.
const MaxStdioPending = 2 * MaxConcurrentCalls

// MaxNesting bounds how deeply the arrays and objects of one message may
// nest. Tool arguments are a flat object with one map (headers); the
// envelope adds three levels. Anything deeper is refused before any
// decoder recurses into it.
const MaxNesting = 64

// Serve builds the server ([NewServer]) and serves it until ctx is done or
// the client goes away: over stdio when opts.HTTPAddr (and opts.Listener)
// are empty, else over streamable HTTP on a loopback address. It writes
// nothing but protocol messages to Stdout; diagnostics go to opts.Logger.
// A cancelled ctx is a clean end (nil); so is the client closing stdin.
func Serve(ctx context.Context, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	s, err := newServer(opts)
	if err != nil {
		return err
	}
	defer s.client.CloseIdleConnections()
	ms, err := s.mcpServer()
	if err != nil {
		return err
	}
	if opts.HTTPAddr == "" && opts.Listener == nil {
		return serveStdio(ctx, s, ms, opts)
	}
	return serveHTTP(ctx, s, ms, opts)
}

func serveStdio(ctx context.Context, s *server, ms *mcp.Server, opts *Options) error {
	// Closing the reader is what unblocks a pending read when the session
	// ends, so a reader that can be closed is passed as is (os.Stdin too).
	var in io.ReadCloser = os.Stdin
	if opts.Stdin != nil {
		rc, ok := opts.Stdin.(io.ReadCloser)
		if !ok {
			rc = io.NopCloser(opts.Stdin)
		}
		in = rc
	}
	var out io.Writer = os.Stdout
	if opts.Stdout != nil {
		out = opts.Stdout
	}
	// A pipe or socket is read through the poller, not by a thread parked
	// in read(2) between calls.
	if f, ok := in.(*os.File); ok {
		outFile, _ := out.(*os.File)
		in = mcpstdio.PollableInput(f, outFile, os.Stderr)
	}
	// The guard answers lines the SDK cannot decode, so that the session
	// survives them, and decodes the others once, for the SDK (no second
	// decoder reads the line again); a result is written without being
	// encoded again (internal/mcpstdio). The end of the input is the client closing the transport: calls in
	// flight are cancelled (callContext).
	inputEnded, endInput := context.WithCancel(context.Background())
	defer endInput()
	s.inputEnded = inputEnded
	err := ms.Run(ctx, mcpstdio.New(in, out, mcpstdio.Options{
		MaxLine:    cmpOr(opts.maxLine, MaxLineBytes),
		MaxNesting: MaxNesting,
		MaxPending: MaxStdioPending,
		OnEnd:      endInput,
	}))
	if ctx.Err() != nil || err == nil || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("mcpserver: stdio: %w", err)
}

func serveHTTP(ctx context.Context, s *server, ms *mcp.Server, opts *Options) error {
	ln := opts.Listener
	if ln == nil {
		var err error
		// localhost is taken as 127.0.0.1, never asked of DNS.
		if ln, err = loopback.Listen(ctx, opts.HTTPAddr); err != nil {
			if errors.Is(err, ErrNotLoopback) {
				return err
			}
			return fmt.Errorf("mcpserver: listen: %w", err)
		}
	}
	defer ln.Close()
	if !loopback.IsAddr(ln.Addr()) {
		return ErrNotLoopback
	}
	if !validToken(opts.BearerToken) {
		return ErrNoToken
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, &mcp.StreamableHTTPOptions{
		Logger:              sdkLogger(diag.For(logger(opts), diag.DomainMCP)),
		MaxRequestBodyBytes: MaxHTTPRequestBytes,
		SessionTimeout:      cmpOr(opts.SessionTimeout, DefaultSessionTimeout),
		// DNS rebinding protection (a non-localhost Host header is
		// refused) stays on; cross-origin requests from browsers are
		// refused below.
	})
	s.front = newHTTPFront(http.NewCrossOriginProtection().Handler(h), ms, opts.BearerToken, opts.MaxSessions)
	// Connections are bounded in number and in idle time, so that local
	// clients (authenticated or not) cannot hold file descriptors open
	// forever: past MaxHTTPConns a new connection waits in the listen
	// backlog until one closes. No WriteTimeout: an SSE stream is long.
	ln = netutil.LimitListener(ln, MaxHTTPConns)
	srv := &http.Server{
		Handler:           s.front,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       httpReadTimeout,
		IdleTimeout:       httpIdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	if opts.Logger != nil {
		srv.ErrorLog = slog.NewLogLogger(sdkLogger(diag.For(opts.Logger, diag.DomainMCP)).Handler(), slog.LevelWarn)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("mcpserver: http: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	<-errc
	// Sessions outlive the HTTP server: close what the clients left open.
	for ss := range ms.Sessions() {
		ss.Close()
	}
	return nil
}

// MaxHTTPConns bounds the connections the streamable HTTP server holds
// open at once.
const MaxHTTPConns = 1024

// httpReadTimeout bounds reading one request (head and body);
// httpIdleTimeout closes a kept-alive connection that sends nothing.
const (
	httpReadTimeout = 60 * time.Second
	httpIdleTimeout = 60 * time.Second
)

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
