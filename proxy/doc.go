// Package proxy is the egress proxy of ocfetch: one saved workspace rule
// covers the Fetch tool and a shell's network alike.
//
// A [Server] listens on loopback only and serves HTTP CONNECT tunnels,
// absolute-form http:// requests and SOCKS5 CONNECT (RFC 1928, with RFC
// 1929 username/password) on the same port. With [Options].Auth set, a
// client must present those credentials (Proxy-Authorization: Basic, or
// SOCKS5 username/password) or it is refused (407, or the SOCKS
// authentication failure) and nothing is forwarded. Every tunnel and
// request is decided on its own, with the files read on that request:
//
//  1. local mode for localhost, 127.0.0.1 and ::1 (profile permissive and
//     the port in local_fetch.json), refused by name otherwise;
//  2. any other IP literal must be public;
//  3. a saved allow rule in rules.json must cover the host and port (a deny
//     rule wins; the proxy cannot ask, so there are no one-off approvals);
//  4. the egress guard dials, and refuses a name that resolves to a
//     non-public address.
//
// A refusal is answered by the proxy itself: 403 (400 for a malformed
// request, 502/504 when the target cannot be reached, 503 past the
// connection cap) with the header X-Ocfetch-Reason: <code> and one line of
// text, "ocfetch: <code>: <message> (hint: <what to change>)". Each tunnel
// or request is one audit line ("CONNECT example.com", the decision, bytes
// each way, duration) — never a path, query, header or body.
//
// Wiring, as `ocfetch proxy` does it:
//
//	ws, _ := workspace.Resolve(rootFlag)
//	profile, _ := risk.Resolve(ws, "")
//	srv, err := proxy.New(&proxy.Options{
//		Workspace: ws,
//		Profile:   profile,
//		Audit:     audit.Open(ws),
//		Logger:    logger,
//	})
//	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
//	err = srv.ListenAndServe("127.0.0.1:8080") // proxy.ErrServerClosed after Shutdown
//
// and `ocfetch run -- CMD` is [Run], which confines CMD with package
// sandbox and serves it on fresh per-run credentials:
//
//	code, err := proxy.Run(ctx, &proxy.Options{Workspace: ws, Profile: profile, Audit: audit.Open(ws)}, nil, args)
//	os.Exit(code)
package proxy
