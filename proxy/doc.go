// Package proxy is the egress proxy of ocfetch: one saved workspace rule
// covers the Fetch tool and a shell's network alike.
//
// A [Server] listens on loopback only and serves HTTP CONNECT tunnels,
// absolute-form http:// requests and SOCKS5 CONNECT (RFC 1928, with RFC
// 1929 username/password) on the same port. With [Options].Auth set, a
// client must present those credentials (Proxy-Authorization: Basic, or
// SOCKS5 username/password) or it is refused (407, or the SOCKS
// authentication failure) and nothing is forwarded. Every tunnel and
// request is decided on its own, by policy.Decide (FrontProxy) with the
// files read on that request (the order is stated once, in
// docs/DESIGN.md), and the egress guard then refuses a name that resolves
// to a non-public address. What Decide leaves to be asked is refused
// not_approved unless [Options].Ask puts it to a person.
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
//	sc, _ := scope.Open(ws, scope.Flags{}, nil)
//	srv, err := proxy.New(&proxy.Options{Scope: sc, Audit: audit.Open(ws), Logger: logger})
//	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
//	err = srv.ListenAndServe("127.0.0.1:8080") // proxy.ErrServerClosed after Shutdown
//
// `ocfetch run -- CMD` is package shellrun, which serves a Server on fresh
// per-run credentials to a command confined by package sandbox.
package proxy
