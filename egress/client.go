package egress

import (
	"crypto/tls"
	"net/http"
	"time"
)

// NewClient returns the guarded *http.Client of the composition root:
//
//   - every connection is dialed by a [Guard] built from opts, so only a
//     public address (or local mode's admitted loopback port) is reached;
//   - Proxy is nil: a proxy from HTTPS_PROXY and friends would be the only
//     address the guard sees, so the environment is never consulted;
//   - TLS 1.2 or later, trusting opts.RootCAs (system roots if nil);
//   - explicit timeouts: the whole request (opts.Timeout, 30s by default,
//     the client's Timeout; the tools put their call's deadline in its
//     place), the TLS handshake, 100-continue, idle connections. No
//     ResponseHeaderTimeout: the whole request's bound already covers the
//     response header, and a second timer per request would cost a
//     runtime wake-up per request for a bound that can never fire first;
//   - response headers bounded by opts.MaxResponseHeaderBytes (64 KiB by
//     default); HTTP/2 allowed.
//
// CheckRedirect is left nil: the Fetch tool sets its own on a copy of the
// client, and the proxy does not follow redirects.
func NewClient(opts *Options) *http.Client {
	var o Options
	if opts != nil {
		o = *opts
	}
	timeout := o.timeout()
	maxHeader := o.MaxResponseHeaderBytes
	if maxHeader <= 0 {
		maxHeader = DefaultMaxResponseHeaderBytes
	}
	t := &http.Transport{
		Proxy:       nil,
		DialContext: NewGuard(&o).DialContext,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			RootCAs:    o.RootCAs,
		},
		TLSHandshakeTimeout:    min(10*time.Second, timeout),
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConns:           32,
		MaxResponseHeaderBytes: maxHeader,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{Transport: t, Timeout: timeout}
}
